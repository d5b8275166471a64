#include "hlo/ir/literal_comparison.h"

#include <cmath>
#include <complex>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tessera {
namespace {

bool IsNan(std::complex<double> value) {
  return std::isnan(value.real()) || std::isnan(value.imag());
}

}  // namespace

bool LiteralsEqualNanAware(const Literal& expected, const Literal& actual, std::string* why) {
  std::string unused;
  if (why == nullptr) why = &unused;
  std::vector<const Literal*> left = expected.Leaves(), right = actual.Leaves();
  if (left.size() != right.size()) {
    *why = absl::StrCat(left.size(), " vs ", right.size(), " result leaves");
    return false;
  }
  for (size_t leaf = 0; leaf < left.size(); ++leaf) {
    const Literal& x = *left[leaf];
    const Literal& y = *right[leaf];
    if (x == y) continue;  // bitwise, layouts aside
    if (!ShapesCompatible(x.shape(), y.shape())) {
      *why = absl::StrCat("leaf ", leaf, ": shape ", x.shape().ToString(), " vs ",
                          y.shape().ToString());
      return false;
    }
    const PrimitiveType type = x.shape().element_type();
    const bool floating = IsFloatingPointType(type) || IsComplexType(type);
    for (int64_t i = 0; i < x.element_count(); ++i) {
      if (floating) {
        const std::complex<double> u = x.GetAsComplex(i), v = y.GetAsComplex(i);
        if (IsNan(u) && IsNan(v)) continue;
        if (u == v && std::signbit(u.real()) == std::signbit(v.real()) &&
            std::signbit(u.imag()) == std::signbit(v.imag())) {
          continue;
        }
      } else if (x.GetAsInt64(i) == y.GetAsInt64(i)) {
        continue;
      }
      *why = absl::StrCat("leaf ", leaf, " element ", i, ": ", x.GetAsDouble(i), " vs ",
                          y.GetAsDouble(i));
      return false;
    }
  }
  return true;
}

}  // namespace tessera
