// core/errors.h - the one error every command throws for bad input (a CLI value, a config,
// a damaged trace, an unwritable path). main() prints its message as one line on stderr and
// exits with status 2; nothing else in the harness prints errors or calls exit().
#pragma once

#include <stdexcept>

namespace amq {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr int kExitBadInput = 2;

}  // namespace amq
