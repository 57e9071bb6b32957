# twin/: the digital twin behind dsec twin (issue #8).
