// The LAPACK factorizations against Eigen's (the two the linear-algebra
// thunk chooses between) and against their shared contract
// (eigen_factorizations.h).  linalg_test checks both through the thunk
// against the evaluator; this checks what its invariants leave free: the
// vectors' normalization, real vectors for real eigenvalues, NaN input.
#include "backends/cpu/lapack_factorizations.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "backends/cpu/eigen_factorizations.h"
#include "backends/cpu/lapack_library.h"
#include "gtest/gtest.h"

namespace tessera {
namespace cpu {
namespace {

// The loaded routines; skips the test where the host has no LAPACK.
#define REQUIRE_LAPACK(routines)                     \
  const lapack::Routines* routines = lapack::Load(); \
  if (routines == nullptr) GTEST_SKIP() << "no LAPACK: " << lapack::Describe();

template <typename T>
std::vector<T> RandomMatrix(int64_t rows, int64_t cols, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal;
  std::vector<T> a(rows * cols);
  for (T& x : a) {
    if constexpr (std::is_floating_point_v<T>) {
      x = normal(random);
    } else {
      x = T(normal(random), normal(random));
    }
  }
  return a;
}

// std::conj, but of a real number a real one.
template <typename T>
T Conjugate(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return x;
  } else {
    return std::conj(x);
  }
}

TEST(LapackLibraryTest, LoadsWhereOpenBlasIsInstalled) {
  // `./tessera test` installs OpenBLAS (libopenblas0): there it must load,
  // or the thunk would quietly run Eigen's slower solvers.
  void* openblas = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (openblas == nullptr) GTEST_SKIP() << "OpenBLAS is not installed";
  dlclose(openblas);
  EXPECT_NE(lapack::Load(), nullptr) << lapack::Describe();
  EXPECT_NE(lapack::Describe().find("libopenblas"), std::string::npos) << lapack::Describe();
}

TEST(LapackFactorizationsTest, FitsBoundsTheWorkspaces) {
  EXPECT_TRUE(factorizations_lapack::Fits(0, 0));
  EXPECT_TRUE(factorizations_lapack::Fits(10000, 10000));
  EXPECT_TRUE(factorizations_lapack::Fits(1 << 24, 8));
  EXPECT_FALSE(factorizations_lapack::Fits(20000, 20000));
  EXPECT_FALSE(factorizations_lapack::Fits(1LL << 31, 1));
}

TEST(LapackFactorizationsTest, LuReconstructsAndReportsTheZeroPivot) {
  REQUIRE_LAPACK(lapack);
  const int64_t m = 30, n = 20;
  const std::vector<double> a = RandomMatrix<double>(m, n, 8);
  std::vector<double> lu = a;
  std::vector<int32_t> pivots(n);
  ASSERT_EQ(factorizations_lapack::Lu(*lapack, m, n, lu.data(), pivots.data()), 0);
  // P A = L U: apply the row swaps to A, then compare with L U.
  std::vector<double> permuted = a;
  for (int64_t k = 0; k < n; ++k) {
    ASSERT_GE(pivots[k], k + 1);
    for (int64_t j = 0; j < n; ++j) std::swap(permuted[j * m + k], permuted[j * m + pivots[k] - 1]);
  }
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t l = 0; l <= std::min(i, j); ++l) {
        sum += (l == i ? 1.0 : lu[l * m + i]) * lu[j * m + l];
      }
      EXPECT_NEAR(sum, permuted[j * m + i], 1e-12) << i << "," << j;
    }
  }
  // A zero column: getrf's info names it (1-based).
  std::vector<float> singular = RandomMatrix<float>(n, n, 9);
  std::fill(singular.begin() + 4 * n, singular.begin() + 5 * n, 0.0f);
  std::vector<int32_t> singular_pivots(n);
  EXPECT_EQ(factorizations_lapack::Lu(*lapack, n, n, singular.data(), singular_pivots.data()), 5);
}

template <typename T>
void CheckHermitianEigenAgrees(const lapack::Routines& lapack, int64_t n) {
  using Real = decltype(std::real(T()));
  std::vector<T> a = RandomMatrix<T>(n, n, n), lapack_a = a, eigen_a = a;
  std::vector<Real> lapack_w(n), eigen_w(n);
  ASSERT_TRUE(
      factorizations_lapack::HermitianEigen(lapack, n, lapack_a.data(), lapack_w.data(), true));
  ASSERT_TRUE(factorizations_baseline::HermitianEigen(n, eigen_a.data(), eigen_w.data(), true));
  const Real tolerance = 50 * n * std::numeric_limits<Real>::epsilon();
  for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(lapack_w[i], eigen_w[i], tolerance * n) << i;
  // Each vector is either's up to a phase: |<v_lapack, v_eigen>| = 1 where
  // the eigenvalue is simple (random matrices' are).
  for (int64_t k = 0; k < n; ++k) {
    T dot = 0;
    for (int64_t i = 0; i < n; ++i) dot += Conjugate(lapack_a[k * n + i]) * eigen_a[k * n + i];
    EXPECT_NEAR(std::abs(dot), 1, tolerance * n) << "vector " << k;
  }
}

TEST(LapackFactorizationsTest, HermitianEigenAgreesWithEigens) {
  REQUIRE_LAPACK(lapack);
  for (int64_t n : {1, 16, 57}) {
    CheckHermitianEigenAgrees<float>(*lapack, n);
    CheckHermitianEigenAgrees<double>(*lapack, n);
    CheckHermitianEigenAgrees<std::complex<float>>(*lapack, n);
    CheckHermitianEigenAgrees<std::complex<double>>(*lapack, n);
  }
}

template <typename T>
void CheckSvdAgrees(const lapack::Routines& lapack, int64_t m, int64_t n, bool full) {
  using Real = decltype(std::real(T()));
  const int64_t k = std::min(m, n);
  const int64_t u_cols = full ? m : k, vt_rows = full ? n : k;
  const std::vector<T> a = RandomMatrix<T>(m, n, m * 31 + n);
  std::vector<Real> lapack_s(k), eigen_s(k);
  std::vector<T> u(m * u_cols), vt(vt_rows * n), eigen_u(m * u_cols), eigen_vt(vt_rows * n);
  ASSERT_TRUE(factorizations_lapack::Svd(lapack, m, n, a.data(), lapack_s.data(), true, u_cols,
                                         u.data(), vt_rows, vt.data()));
  ASSERT_TRUE(factorizations_baseline::Svd(m, n, a.data(), eigen_s.data(), true, u_cols,
                                           eigen_u.data(), vt_rows, eigen_vt.data()));
  const Real tolerance = 50 * std::max(m, n) * std::numeric_limits<Real>::epsilon();
  for (int64_t i = 0; i < k; ++i) EXPECT_NEAR(lapack_s[i], eigen_s[i], tolerance * 10) << i;
  // A = U S V^H from LAPACK's factors.
  Real worst = 0;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T sum = 0;
      for (int64_t l = 0; l < k; ++l) sum += u[l * m + i] * lapack_s[l] * vt[j * vt_rows + l];
      worst = std::max<Real>(worst, std::abs(sum - a[j * m + i]));
    }
  }
  EXPECT_LT(worst, tolerance * 10) << m << "x" << n;
  // A full U is square unitary: its last column too has unit norm.
  Real last = 0;
  for (int64_t i = 0; i < m; ++i) last += std::norm(u[(u_cols - 1) * m + i]);
  EXPECT_NEAR(last, 1, tolerance);
}

TEST(LapackFactorizationsTest, SvdAgreesWithEigens) {
  REQUIRE_LAPACK(lapack);
  for (bool full : {false, true}) {
    CheckSvdAgrees<float>(*lapack, 40, 17, full);
    CheckSvdAgrees<double>(*lapack, 17, 40, full);
    CheckSvdAgrees<std::complex<float>>(*lapack, 23, 23, full);
    CheckSvdAgrees<std::complex<double>>(*lapack, 50, 31, full);
  }
  // Values only: U and V^H are zero, as the contract says.
  const std::vector<double> a = RandomMatrix<double>(20, 30, 5);
  std::vector<double> s(20), u(20 * 20, 7), vt(20 * 30, 7);
  ASSERT_TRUE(factorizations_lapack::Svd(*lapack, 20, 30, a.data(), s.data(), false, 20, u.data(),
                                         20, vt.data()));
  EXPECT_TRUE(std::all_of(u.begin(), u.end(), [](double x) { return x == 0; }));
  EXPECT_TRUE(std::all_of(vt.begin(), vt.end(), [](double x) { return x == 0; }));
  EXPECT_GT(s[0], s[19]);
}

// Checks geev's results for the n x n `a`: A v = w v, u^H A = w u^H, each
// vector of unit norm with its largest component real and positive, and
// real eigenvalues of real input with real vectors.
template <typename T>
void CheckGeneralEigen(const lapack::Routines& lapack, int64_t n, const std::vector<T>& a) {
  using Real = decltype(std::real(T()));
  using C = std::complex<Real>;
  std::vector<C> w(n), vl(n * n), vr(n * n);
  ASSERT_TRUE(factorizations_lapack::GeneralEigen(lapack, n, a.data(), w.data(), true, vl.data(),
                                                  true, vr.data()));
  const Real tolerance = 100 * n * std::numeric_limits<Real>::epsilon();
  Real scale = 0;
  for (const T& x : a) scale = std::max<Real>(scale, std::abs(x));
  for (int64_t k = 0; k < n; ++k) {
    const C* right = &vr[k * n];
    const C* left = &vl[k * n];
    for (const C* v : {right, left}) {
      Real squares = 0, largest = 0;
      for (int64_t i = 0; i < n; ++i) {
        squares += std::norm(v[i]);
        largest = std::max<Real>(largest, std::abs(v[i]));
      }
      EXPECT_NEAR(squares, 1, tolerance) << "vector " << k;
      // A component of the largest modulus (within rounding, for ties) is
      // real and positive.
      bool real_largest = false;
      for (int64_t i = 0; i < n; ++i) {
        real_largest |= v[i].imag() == 0 && v[i].real() >= largest * (1 - tolerance);
      }
      EXPECT_TRUE(real_largest) << "vector " << k;
      if (std::is_floating_point_v<T> && w[k].imag() == 0) {
        for (int64_t i = 0; i < n; ++i) EXPECT_EQ(v[i].imag(), 0) << "vector " << k;
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      C av = 0, ua = 0;
      for (int64_t j = 0; j < n; ++j) {
        av += C(a[j * n + i]) * right[j];
        ua += std::conj(left[j]) * C(a[i * n + j]);
      }
      EXPECT_LT(std::abs(av - w[k] * right[i]), tolerance * scale) << k << "," << i;
      EXPECT_LT(std::abs(ua - w[k] * std::conj(left[i])), tolerance * scale) << k << "," << i;
    }
  }
}

TEST(LapackFactorizationsTest, GeneralEigenKeepsTheContract) {
  REQUIRE_LAPACK(lapack);
  for (int64_t n : {1, 2, 16, 45}) {
    CheckGeneralEigen<float>(*lapack, n, RandomMatrix<float>(n, n, n));
    CheckGeneralEigen<double>(*lapack, n, RandomMatrix<double>(n, n, n + 1));
    CheckGeneralEigen<std::complex<float>>(*lapack, n, RandomMatrix<std::complex<float>>(n, n, 3));
    CheckGeneralEigen<std::complex<double>>(*lapack, n,
                                            RandomMatrix<std::complex<double>>(n, n, 4));
  }
  // A rotation: a conjugate pair and its conjugate vectors.
  const std::vector<double> rotation = {0, 1, -1, 0};
  CheckGeneralEigen<double>(*lapack, 2, rotation);
}

TEST(LapackFactorizationsTest, GeneralEigenValuesAgreeWithEigens) {
  REQUIRE_LAPACK(lapack);
  const int64_t n = 60;
  const std::vector<double> a = RandomMatrix<double>(n, n, 11);
  std::vector<std::complex<double>> lapack_w(n), eigen_w(n), vl(n * n), vr(n * n);
  ASSERT_TRUE(factorizations_lapack::GeneralEigen(*lapack, n, a.data(), lapack_w.data(), false,
                                                  vl.data(), false, vr.data()));
  ASSERT_TRUE(factorizations_baseline::GeneralEigen(n, a.data(), eigen_w.data(), false, vl.data(),
                                                    false, vr.data()));
  auto order = [](std::complex<double> x, std::complex<double> y) {
    return std::make_pair(x.real(), x.imag()) < std::make_pair(y.real(), y.imag());
  };
  std::sort(lapack_w.begin(), lapack_w.end(), order);
  std::sort(eigen_w.begin(), eigen_w.end(), order);
  for (int64_t i = 0; i < n; ++i) EXPECT_LT(std::abs(lapack_w[i] - eigen_w[i]), 1e-10) << i;
}

template <typename C>
void CheckSchur(const lapack::Routines& lapack, int64_t n) {
  using Real = typename C::value_type;
  const std::vector<C> a = RandomMatrix<C>(n, n, n + 20);
  std::vector<C> t = a, z(n * n), w(n);
  ASSERT_TRUE(factorizations_lapack::Schur(lapack, n, t.data(), true, z.data(), w.data()));
  const Real tolerance = 100 * n * std::numeric_limits<Real>::epsilon();
  Real scale = 0;
  for (const C& x : a) scale = std::max<Real>(scale, std::abs(x));
  for (int64_t j = 0; j < n; ++j) {
    EXPECT_EQ(w[j], t[j * n + j]);
    for (int64_t i = j + 1; i < n; ++i) EXPECT_EQ(t[j * n + i], C(0)) << i << "," << j;
  }
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      C gram = 0, product = 0;  // (Z^H Z)(i, j) and (Z T Z^H)(i, j)
      for (int64_t k = 0; k < n; ++k) {
        gram += std::conj(z[i * n + k]) * z[j * n + k];
        for (int64_t l = 0; l < n; ++l) {
          product += z[k * n + i] * t[l * n + k] * std::conj(z[l * n + j]);
        }
      }
      EXPECT_LT(std::abs(gram - C(i == j ? 1 : 0)), tolerance) << i << "," << j;
      EXPECT_LT(std::abs(product - a[j * n + i]), tolerance * scale) << i << "," << j;
    }
  }
  // Without vectors: the same triangle's diagonal, and Z zero.
  std::vector<C> values_only = a, no_z(n * n, C(7)), w2(n);
  ASSERT_TRUE(
      factorizations_lapack::Schur(lapack, n, values_only.data(), false, no_z.data(), w2.data()));
  for (const C& x : no_z) EXPECT_EQ(x, C(0));
}

TEST(LapackFactorizationsTest, SchurKeepsTheContract) {
  REQUIRE_LAPACK(lapack);
  for (int64_t n : {1, 5, 40}) {
    CheckSchur<std::complex<float>>(*lapack, n);
    CheckSchur<std::complex<double>>(*lapack, n);
  }
}

TEST(LapackFactorizationsTest, RealSchurKeepsTheContract) {
  REQUIRE_LAPACK(lapack);
  for (int64_t n : {2, 9, 40}) {
    SCOPED_TRACE(n);
    const std::vector<double> a = RandomMatrix<double>(n, n, n + 40);
    std::vector<double> t = a, z(n * n), wr(n), wi(n);
    ASSERT_TRUE(factorizations_lapack::RealSchur(*lapack, n, t.data(), true, z.data(), wr.data(),
                                                 wi.data()));
    auto at = [&](const std::vector<double>& m, int64_t i, int64_t j) { return m[j * n + i]; };
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double product = 0;
        for (int64_t k = 0; k < n; ++k) {
          for (int64_t l = 0; l < n; ++l) product += at(z, i, k) * at(t, k, l) * at(z, j, l);
        }
        EXPECT_NEAR(product, at(a, i, j), 1e-12 * n) << i << "," << j;
        if (i > j + 1) {
          EXPECT_EQ(at(t, i, j), 0) << i << "," << j;
        }
      }
    }
    for (int64_t i = 0; i + 1 < n; ++i) {
      if (at(t, i + 1, i) == 0) continue;
      EXPECT_EQ(at(t, i, i), at(t, i + 1, i + 1)) << i;  // standardized
      EXPECT_LT(at(t, i, i + 1) * at(t, i + 1, i), 0) << i;
      EXPECT_GT(wi[i], 0) << i;
    }
  }
}

TEST(LapackFactorizationsTest, NonFiniteInputGivesNan) {
  REQUIRE_LAPACK(lapack);
  const int64_t n = 20;
  std::vector<double> a = RandomMatrix<double>(n, n, 2);
  a[3 * n + 7] = std::numeric_limits<double>::infinity();  // in the lower triangle
  std::vector<double> copy = a, w(n), s(n), u(n * n), vt(n * n);
  ASSERT_TRUE(factorizations_lapack::HermitianEigen(*lapack, n, copy.data(), w.data(), true));
  EXPECT_TRUE(std::isnan(w[0]) && std::isnan(copy[0]));
  ASSERT_TRUE(factorizations_lapack::Svd(*lapack, n, n, a.data(), s.data(), true, n, u.data(), n,
                                         vt.data()));
  EXPECT_TRUE(std::isnan(s[n - 1]) && std::isnan(u[0]) && std::isnan(vt[0]));
  std::vector<std::complex<double>> values(n), vl(n * n), vr(n * n);
  ASSERT_TRUE(factorizations_lapack::GeneralEigen(*lapack, n, a.data(), values.data(), false,
                                                  vl.data(), true, vr.data()));
  EXPECT_TRUE(std::isnan(values[0].real()) && std::isnan(vr[0].real()));
  EXPECT_EQ(vl[0], std::complex<double>(0));  // not asked for: zero
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
