/*
 * Return codes shared by every module. Functions that can fail return int:
 * 0 on success or one of the negative SIM_E* codes below. The list is an
 * X-macro that also generates sim_strerror() and sim_errname(). It is
 * append-only: always add new codes last and never remove one, so that codes
 * stored in result databases keep their meaning.
 */
#ifndef BASE_ERRORS_H
#define BASE_ERRORS_H

#define SIM_ERRORS(X)                                                          \
    X(SIM_OK, 0, "success")                                                    \
    X(SIM_ENOMEM, -1, "out of memory")                                         \
    X(SIM_EINVAL, -2, "invalid argument")                                      \
    X(SIM_EIO, -3, "input/output error")                                       \
    X(SIM_EPARSE, -4, "parse error")                                           \
    X(SIM_ERANGE, -5, "value out of range")                                    \
    X(SIM_ENOTFOUND, -6, "not found")                                          \
    X(SIM_EPAST, -7, "event scheduled in the past")                            \
    X(SIM_EINFEASIBLE, -8, "configuration is infeasible")                      \
    X(SIM_EDB, -9, "database error")                                           \
    X(SIM_EEOF, -10, "end of input")                                           \
    X(SIM_EBUSY, -11, "event already scheduled")

enum sim_err {
#define SIM_ERR_ENUM(name, value, text) name = value,
    SIM_ERRORS(SIM_ERR_ENUM)
#undef SIM_ERR_ENUM
};

/* Returns a static, lower-case description of code; "unknown error" for a
 * value that is not in the list. */
const char *sim_strerror(int code);

/* Returns the static name of code, such as "SIM_EINVAL", or "SIM_E?" for an
 * unknown value. */
const char *sim_errname(int code);

#endif /* BASE_ERRORS_H */
