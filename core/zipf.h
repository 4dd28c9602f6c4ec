// core/zipf.h - exact Zipf sampling over a finite set of ranks.
//
// Zipf(N, alpha): P(k) = k^-alpha / sum_{j<=N} j^-alpha for k = 1..N.
// Sampled by rejection-inversion (Hoermann and Derflinger, "Rejection-inversion to generate
// variates from monotone discrete distributions", ACM TOMACS 6(3), 1996): with h(x) = x^-alpha
// and H its antiderivative, a uniform u over (H(1.5) - 1, H(N + 0.5)] is inverted to
// x = H^-1(u) and rounded to k; k is accepted when u >= H(k + 0.5) - h(k). The accepted part of
// k's interval has length exactly h(k) (for k = 1 the whole interval, which is why the range
// starts at H(1.5) - 1), and h convex makes every such part fit inside [H(k-0.5), H(k+0.5)), so
// the result is exactly Zipf up to floating point, with O(1) memory at any N. The acceptance
// rate, sum h(k) over the length of the u range, is above 0.98 for any alpha <= 3, so a draw
// costs about one round. alpha = 0 is the uniform distribution. The squeeze in the paper that
// skips computing H(k + 0.5) is left out: it only saves time, and without it the accepted region
// is exactly the one the argument above is about.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/hashing.h"

namespace amq {

// A uniform double in [0, 1) from the top 53 bits.
inline double UnitDouble(XorShift64Star& rng) { return (rng.Next() >> 11) * 0x1.0p-53; }

class ZipfSampler {
 public:
  // n >= 1, alpha >= 0 and finite (callers validate user input; this asserts nothing).
  ZipfSampler(std::uint64_t n, double alpha);

  // A rank in [1, n].
  std::uint64_t operator()(XorShift64Star& rng) const;

  std::uint64_t n() const { return n_; }
  double alpha() const { return alpha_; }

 private:
  double H(double x) const;  // integral of x^-alpha from 1 to x
  double HInverse(double y) const;
  double h(double x) const { return std::exp(-alpha_ * std::log(x)); }

  std::uint64_t n_;
  double alpha_;
  double one_minus_alpha_;
  double low_;   // H(1.5) - 1
  double high_;  // H(n + 0.5)
};

// How often each key of a pool is asked about: uniformly, or Zipf(alpha) over ranks given to
// the pool's keys. The one popularity type of the harness: query streams (workloads/queries.h),
// synthetic traces and the adaptive-filter experiments all take it.
struct Popularity {
  bool zipf = false;
  double alpha = 0;  // zipf only; in (0, 100]

  // "uniform" or "zipf:ALPHA"; throws InputError naming --option otherwise.
  static Popularity Parse(const std::string& text, const std::string& option = "popularity");
  std::string Name() const;  // the text it parses from, alpha printed with %g
};

// The exact probabilities P(1..n), for tests and for the parameters a run records.
std::vector<double> ZipfPmf(std::uint64_t n, double alpha);

}  // namespace amq
