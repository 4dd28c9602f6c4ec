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

// Wilson score interval for a proportion p observed over n independent draws. n may be
// fractional: an effective number of draws (EffectiveDraws) when the draws come in clusters.
inline Interval WilsonIntervalAt(double p, double n, double z = 1.96) {
  if (!(n > 0)) return {0.0, 1.0};
  const double z2 = z * z;
  const double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const double half = z / (1 + z2 / n) * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

// Wilson score interval for a binomial proportion (successes out of trials). Unlike the
// normal approximation it stays inside [0, 1] and behaves at 0 or very few successes, which
// is where small FPRs live. z = 1.96 gives 95%.
inline Interval WilsonInterval(std::size_t successes, std::size_t trials, double z = 1.96) {
  if (trials == 0) return {0.0, 1.0};
  return WilsonIntervalAt(double(successes) / double(trials), double(trials), z);
}

// Kish's effective number of independent draws behind a ratio whose queries come in clusters that
// may answer alike: (sum m)^2 / sum m^2 for m queries per cluster, given the two sums. A static
// filter answers every query of a flow the same way, so the flows, not the queries, are its
// independent draws, and this is exact for it; an adaptive filter's answers to a flow's later
// queries agree less often, so for it the interval is conservative (wider than it need be), never
// too narrow.
inline double EffectiveDraws(double queries, double sum_of_squares) {
  return sum_of_squares > 0 ? queries * queries / sum_of_squares : 0.0;
}

// 95% interval for the mean of independent, identically distributed trials: mean -/+ t * s/sqrt(n),
// t Student's 0.975 quantile at n - 1 degrees of freedom (Cornish-Fisher expansion: 0.7% low at
// 3 degrees of freedom, within 0.11% from 5 up, so use it with 6 or more trials; callers do).
inline Interval MeanInterval(const std::vector<double>& values) {
  const std::size_t n = values.size();
  if (n < 2) return {0.0, 0.0};
  double mean = 0, ss = 0;
  for (double v : values) mean += v / double(n);
  for (double v : values) ss += (v - mean) * (v - mean);
  const double nu = double(n - 1), z = 1.959963984540054;
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  const double t = z + (z3 + z) / (4 * nu) + (5 * z5 + 16 * z3 + 3 * z) / (96 * nu * nu) +
                   (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * nu * nu * nu);
  const double half = t * std::sqrt(ss / nu / double(n));
  return {mean - half, mean + half};
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
