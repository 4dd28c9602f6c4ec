#include "core/zipf.h"

#include <cstdio>
#include <cstdlib>

#include "core/errors.h"

#include <algorithm>

namespace amq {
namespace {

// Below this |1 - alpha| the closed forms below lose digits to cancellation; the alpha = 1
// forms (log and exp) are then exact to double precision.
constexpr double kNearOne = 1e-9;

}  // namespace

ZipfSampler::ZipfSampler(std::uint64_t n, double alpha)
    : n_(n), alpha_(alpha), one_minus_alpha_(1.0 - alpha) {
  low_ = H(1.5) - 1.0;
  high_ = H(static_cast<double>(n) + 0.5);
}

// (x^(1-a) - 1) / (1-a), written with expm1 so that alpha near 1 keeps its precision.
double ZipfSampler::H(double x) const {
  const double log_x = std::log(x);
  if (std::abs(one_minus_alpha_) < kNearOne) return log_x;
  return std::expm1(one_minus_alpha_ * log_x) / one_minus_alpha_;
}

double ZipfSampler::HInverse(double y) const {
  if (std::abs(one_minus_alpha_) < kNearOne) return std::exp(y);
  // For alpha > 1, 1 + y(1-a) > 0 holds on the sampled range; the clamp keeps rounding at its
  // upper end from producing a NaN.
  const double t = std::max(y * one_minus_alpha_, -1.0 + 1e-16);
  return std::exp(std::log1p(t) / one_minus_alpha_);
}

std::uint64_t ZipfSampler::operator()(XorShift64Star& rng) const {
  for (;;) {
    const double u = high_ + UnitDouble(rng) * (low_ - high_);  // in (low_, high_]
    const double x = HInverse(u);
    double k = std::floor(x + 0.5);
    k = std::clamp(k, 1.0, static_cast<double>(n_));
    if (u >= H(k + 0.5) - h(k)) return static_cast<std::uint64_t>(k);
  }
}

std::vector<double> ZipfPmf(std::uint64_t n, double alpha) {
  std::vector<double> pmf(n);
  double total = 0;
  // Summed from the smallest terms up, so the normalizer loses nothing to the large ones.
  for (std::uint64_t k = n; k >= 1; --k) {
    pmf[k - 1] = std::pow(static_cast<double>(k), -alpha);
    total += pmf[k - 1];
  }
  for (double& p : pmf) p /= total;
  return pmf;
}

Popularity Popularity::Parse(const std::string& text, const std::string& option) {
  if (text == "uniform") return {};
  if (text.rfind("zipf:", 0) == 0 && text.size() > 5) {
    const char* begin = text.c_str() + 5;
    char* end = nullptr;
    const double alpha = std::strtod(begin, &end);
    if (end && *end == '\0' && std::isfinite(alpha) && alpha > 0 && alpha <= 100) {
      return {true, alpha};
    }
  }
  throw InputError("--" + option + " must be uniform or zipf:ALPHA with 0 < ALPHA <= 100 (e.g. zipf:0.99), got '" +
                   text + "'");
}

std::string Popularity::Name() const {
  if (!zipf) return "uniform";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "zipf:%g", alpha);
  return buffer;
}

}  // namespace amq
