#include "pbc/pbc.h"

const char *pbc_status_str(pbc_status s) {
  switch (s) {
  case PBC_OK: return "ok";
  case PBC_ERR_TRUNCATED: return "truncated input";
  case PBC_ERR_MALFORMED_VARINT: return "malformed varint";
  case PBC_ERR_BAD_WIRE_TYPE: return "bad wire type";
  case PBC_ERR_BAD_FIELD_NUMBER: return "bad field number";
  case PBC_ERR_BAD_LENGTH: return "bad length";
  case PBC_ERR_END_GROUP: return "unmatched end-group tag";
  case PBC_ERR_INVALID_UTF8: return "invalid UTF-8 in string field";
  case PBC_ERR_DEPTH_LIMIT: return "nesting too deep";
  case PBC_ERR_OUT_OF_MEMORY: return "out of memory";
  case PBC_ERR_MISSING_REQUIRED: return "missing required field";
  case PBC_ERR_BUFFER_TOO_SMALL: return "output buffer too small";
  case PBC_ERR_TOO_LARGE: return "message too large (2 GiB or more)";
  case PBC_ERR_ARENA_LIMIT: return "arena byte limit reached";
  case PBC_ERR_NO_NAMES: return "message compiled without field names (LITE_RUNTIME)";
  case PBC_ERR_TEXT_SYNTAX: return "text format syntax error";
  case PBC_ERR_BAD_SCHEMA: return "not a descriptor set pbc can load";
  case PBC_ERR_JSON_VALUE: return "a value ProtoJSON cannot represent";
  case PBC_ERR_JSON_SYNTAX: return "JSON syntax error";
  }
  return "unknown status";
}
