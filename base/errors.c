/* Tables generated from the SIM_ERRORS X-macro. */
#include "base/errors.h"

const char *sim_strerror(int code)
{
    switch (code) {
#define SIM_ERR_TEXT(name, value, text)                                        \
    case value:                                                                \
        return text;
        SIM_ERRORS(SIM_ERR_TEXT)
#undef SIM_ERR_TEXT
    }
    return "unknown error";
}

const char *sim_errname(int code)
{
    switch (code) {
#define SIM_ERR_NAME(name, value, text)                                        \
    case value:                                                                \
        return #name;
        SIM_ERRORS(SIM_ERR_NAME)
#undef SIM_ERR_NAME
    }
    return "SIM_E?";
}
