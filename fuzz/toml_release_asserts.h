// fuzz/toml_release_asserts.h - forced into harness/suite/suite.cc in the fuzz build (fuzz/CMakeLists.txt):
// toml++'s internal assertions off, as in the release library amqbench links, without NDEBUG
// (which would also turn them into __builtin_assume hints and switch off nlohmann's checks).
#pragma once

#define TOML_ASSERT(expr) static_assert(true)
