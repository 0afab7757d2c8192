/* The printed JSON's one style (json_style.h). */
#include "core/util/json_style.h"

#include <jansson.h>

size_t e2b_json_style(bool pretty)
{
    return (pretty ? JSON_INDENT(2) : JSON_COMPACT) | JSON_ENSURE_ASCII;
}
