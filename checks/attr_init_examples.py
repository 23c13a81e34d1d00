VALID = ()
INVALID = ()
