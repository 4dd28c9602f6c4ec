// Placeholder until the subcommand lands: keeps the driver linking.
#include "harness/commands.h"
#include "harness/errors.h"

namespace amq {
int TraceCommand(const Args&) { throw InputError("this subcommand is not built yet"); }
}  // namespace amq
