// core/sanitizers.h - whether this binary was built with AddressSanitizer (scripts/sanitize.sh's
// build): what memory measurements and valgrind runs check before trusting themselves. gcc says
// __SANITIZE_ADDRESS__, clang __has_feature(address_sanitizer).
#pragma once

namespace amq {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kBuiltWithAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kBuiltWithAddressSanitizer = true;
#else
inline constexpr bool kBuiltWithAddressSanitizer = false;
#endif
#else
inline constexpr bool kBuiltWithAddressSanitizer = false;
#endif

}  // namespace amq
