// harness/run/result_file.h - how every command writes its JSON: a context block describing the
// machine and build, then records; always written whole to a temporary file and renamed, so
// a reader never sees half a file and an interrupted run keeps the cells it finished.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/json.h"

namespace amq {

// Host (name, CPU model, cores, caches), compiler and flags, build type, -march=native,
// git commit, command line, UTC time, seed.
Json RunContext(const std::string& command_line, std::uint64_t seed);

// "amqbench <command> <args...>": the command line recorded in the context.
std::string CommandLine(const std::string& command, const std::vector<std::string>& args);

// Throws InputError unless `path`'s directory exists and a file can be created there.
void CheckWritable(const std::string& path);

// Writes `doc` to path.tmp.<pid>, then renames it over `path`. Throws InputError on failure.
void WriteJsonAtomically(const std::string& path, const Json& doc);

}  // namespace amq
