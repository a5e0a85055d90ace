#pragma once
// Escaping for the HTML report (src/io/html_report.h).

#include <string>
#include <string_view>

namespace frugal {

// `s` safe as HTML text and as a double-quoted attribute value: & < > " ' as entities.
std::string html_escape(std::string_view s);

// A JSON document safe inside <script type="application/json">: every "</" becomes "<\/"
// (the same JSON: "\/" is an escaped "/"), so no "</script>" can end the element early.
std::string script_safe_json(std::string_view json);

// A number for a data-value attribute: the shortest text that reads back as the same double
// (as the JSON holds it), "0" for NaN and infinities.
std::string number_text(double v);

}  // namespace frugal
