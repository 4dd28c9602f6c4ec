// core/stats.h - the statistics the harness reports: confidence intervals for measured
// rates, acceptance bands for tests, and median/min/max of repeated timings.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace amq {

struct Interval {
  double low = 0;
  double high = 0;
};

// Wilson score interval for a binomial proportion (successes out of trials). Unlike the
// normal approximation it stays inside [0, 1] and behaves at 0 or very few successes, which
// is where small FPRs live. z = 1.96 gives 95%.
inline Interval WilsonInterval(std::size_t successes, std::size_t trials, double z = 1.96) {
  if (trials == 0) return {0.0, 1.0};
  const double n = static_cast<double>(trials);
  const double p = successes / n;
  const double z2 = z * z;
  const double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const double half = z / (1 + z2 / n) * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

// The band a Binomial(trials, p) count falls in except with probability ~2*Phi(-z): mean
// -/+ z standard deviations, widened by one count for the discreteness of small means.
// With z = 5 a correct filter fails a fixed-seed test with probability below 10^-6.
inline Interval BinomialBand(std::size_t trials, double p, double z = 5.0) {
  const double mean = trials * p;
  const double sd = std::sqrt(trials * p * (1 - p));
  return {std::max(0.0, mean - z * sd - 1), mean + z * sd + 1};
}

struct Summary {
  double median = 0;
  double min = 0;
  double max = 0;
};

inline Summary Summarize(std::vector<double> values) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  const double median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  return {median, values.front(), values.back()};
}

}  // namespace amq
