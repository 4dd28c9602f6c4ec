// core/json.h - the one JSON type every floor writes records with: nlohmann's ordered_json, so
// a record's fields keep the order they were written in (a result line reads like its schema).
#pragma once

#include <nlohmann/json.hpp>

namespace amq {

using Json = nlohmann::ordered_json;

}  // namespace amq
