#pragma once
// The search's JSON (`trainplan search`): a public contract like the estimate's; extend, never rename.

#include <QJsonObject>

#include "core/search/Search.h"

namespace trainplan::io {

QJsonObject searchToJson(const SearchOutcome &outcome, const SearchConstraints &constraints, const Catalog &catalog);
QJsonObject scoreToJson(const SearchScore &score);

} // namespace trainplan::io
