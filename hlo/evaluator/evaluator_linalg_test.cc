// cholesky, triangular-solve and JAX's LAPACK calls (potrf, getrf, trsm,
// geqrf, syevd/heevd, gesdd/gesvd) on small matrices with known factors,
// solutions and spectra, and the errors of malformed calls.
#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator_test_util.h"

namespace tessera {
namespace evaluator_test {
namespace {

using ::testing::HasSubstr;

constexpr char kFfi[] = "api_version=API_VERSION_TYPED_FFI";

std::string Call(absl::string_view result, absl::string_view operands, absl::string_view target,
                 absl::string_view config) {
  return absl::StrCat(result, " custom-call(", operands, "), custom_call_target=\"", target, "\", ",
                      kFfi, ", backend_config={", config, "}");
}

TEST(EvaluatorLinalgTest, LapackCholeskyKeepsTheOtherTriangle) {
  // [[4, 2], [2, 3]] = L L^T with L = [[2, 0], [1, sqrt 2]]; the layout is
  // JAX's column-major one, which does not change the logical matrices.
  const Literal a = L("f32[2,2]{0,1}", "{{4, 2}, {2, 3}}");
  absl::StatusOr<Literal> lower = EvaluateRoot(
      Call("(f32[2,2]{0,1}, s32[])", "p0", "lapack_spotrf_ffi", "uplo = 76 : ui8"), {a});
  ASSERT_TRUE(lower.ok()) << lower.status();
  EXPECT_TRUE(LiteralsNear(L("f32[2,2]", "{{2, 2}, {1, 1.41421356}}"), lower->tuple_element(0),
                           1e-6, 1e-6));
  EXPECT_EVAL(std::move(lower->mutable_tuple_element(1)), L("s32[]", "0"));
  absl::StatusOr<Literal> upper = EvaluateRoot(
      Call("(f32[2,2]{0,1}, s32[])", "p0", "lapack_spotrf_ffi", "uplo = 85 : ui8"), {a});
  ASSERT_TRUE(upper.ok()) << upper.status();
  EXPECT_TRUE(LiteralsNear(L("f32[2,2]", "{{2, 1}, {2, 1.41421356}}"), upper->tuple_element(0),
                           1e-6, 1e-6));
  // Not positive definite at order 2: info 2.
  absl::StatusOr<Literal> failed =
      EvaluateRoot(Call("(f64[1,2,2], s32[1])", "p0", "lapack_dpotrf_ffi", "uplo = 76 : ui8"),
                   {L("f64[1,2,2]", "{{{1, 2}, {2, 1}}}")});
  ASSERT_TRUE(failed.ok()) << failed.status();
  EXPECT_TRUE(LiteralsEqual(L("s32[1]", "{2}"), failed->tuple_element(1)));
}

TEST(EvaluatorLinalgTest, XlaCholeskyZeroesTheOtherTriangle) {
  EXPECT_EVAL_NEAR(
      EvaluateRoot("f64[2,2] cholesky(p0), lower=false", {L("f64[2,2]", "{{4, 2}, {2, 3}}")}),
      L("f64[2,2]", "{{2, 1}, {0, 1.4142135623730951}}"), 1e-15, 1e-15);
  EXPECT_EVAL(
      EvaluateRoot("f32[2,2] cholesky(p0), lower=true", {L("f32[2,2]", "{{1, 2}, {2, 1}}")}),
      L("f32[2,2]", "{{nan, nan}, {nan, nan}}"));
}

TEST(EvaluatorLinalgTest, LuPivotsAsLapack) {
  // [[1, 2], [3, 4]]: row 2 first; L21 = 1/3, U22 = 2 - 4/3.
  absl::StatusOr<Literal> lu =
      EvaluateRoot(Call("(f32[2,2], s32[2], s32[])", "p0", "lapack_sgetrf_ffi", ""),
                   {L("f32[2,2]", "{{1, 2}, {3, 4}}")});
  ASSERT_TRUE(lu.ok()) << lu.status();
  EXPECT_TRUE(LiteralsNear(L("f32[2,2]", "{{3, 4}, {0.33333333, 0.66666667}}"),
                           lu->tuple_element(0), 1e-6, 1e-6));
  EXPECT_TRUE(LiteralsEqual(L("s32[2]", "{2, 2}"), lu->tuple_element(1)));
  EXPECT_TRUE(LiteralsEqual(L("s32[]", "0"), lu->tuple_element(2)));
  // A zero column: info 1, the factorization going on.
  absl::StatusOr<Literal> singular =
      EvaluateRoot(Call("(f32[2,2], s32[2], s32[])", "p0", "lapack_sgetrf_ffi", ""),
                   {L("f32[2,2]", "{{0, 0}, {0, 1}}")});
  ASSERT_TRUE(singular.ok()) << singular.status();
  EXPECT_TRUE(LiteralsEqual(L("s32[2]", "{1, 2}"), singular->tuple_element(1)));
  EXPECT_TRUE(LiteralsEqual(L("s32[]", "1"), singular->tuple_element(2)));
  // Complex pivots by |re| + |im| (LAPACK's icamax): 2+2i (4) over 3 (3),
  // though |2+2i| < 3.
  absl::StatusOr<Literal> complex =
      EvaluateRoot(Call("(c64[2,1], s32[1], s32[])", "p0", "lapack_cgetrf_ffi", ""),
                   {L("c64[2,1]", "{{(3, 0)}, {(2, 2)}}")});
  ASSERT_TRUE(complex.ok()) << complex.status();
  EXPECT_TRUE(LiteralsEqual(L("s32[1]", "{2}"), complex->tuple_element(1)));
}

TEST(EvaluatorLinalgTest, TriangularSolves) {
  const Literal a = L("f32[2,2]", "{{2, 99}, {1, 4}}");  // 99: never read as lower
  auto trsm = [&](absl::string_view config, absl::string_view b_shape, Literal b) {
    return EvaluateRoot(Call(b_shape, "p0, p1", "lapack_strsm_ffi", config), {a, std::move(b)});
  };
  // A x = b, lower: x0 = 2 / 2, x1 = (9 - 1) / 4.
  EXPECT_EVAL(trsm("diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8",
                   "f32[2,1]", L("f32[2,1]", "{{2}, {9}}")),
              L("f32[2,1]", "{{1}, {2}}"));
  // Unit diagonal: x0 = 2, x1 = 9 - 2.
  EXPECT_EVAL(trsm("diag = 85 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8",
                   "f32[2,1]", L("f32[2,1]", "{{2}, {9}}")),
              L("f32[2,1]", "{{2}, {7}}"));
  // A^T x = b: [[2, 1], [0, 4]] x = [4, 8].
  EXPECT_EVAL(trsm("diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 76 : ui8",
                   "f32[2,1]", L("f32[2,1]", "{{4}, {8}}")),
              L("f32[2,1]", "{{1}, {2}}"));
  // x A = b on the right: [2 x0 + x1, 4 x1] = [4, 8].
  EXPECT_EVAL(trsm("diag = 78 : ui8, side = 82 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8",
                   "f32[1,2]", L("f32[1,2]", "{{4, 8}}")),
              L("f32[1,2]", "{{1, 2}}"));
  // XLA's op, adjoint of a complex lower triangle: A^H = [[2, -i], [0, 1]].
  EXPECT_EVAL(EvaluateRoot("c64[2,1] triangular-solve(p0, p1), left_side=true, lower=true, "
                           "unit_diagonal=false, transpose_a=ADJOINT",
                           {L("c64[2,2]", "{{(2, 0), (0, 0)}, {(0, 1), (1, 0)}}"),
                            L("c64[2,1]", "{{(2, -1)}, {(1, 0)}}")}),
              L("c64[2,1]", "{{(1, 0)}, {(1, 0)}}"));
}

TEST(EvaluatorLinalgTest, QrAsLapack) {
  // (3, 4): beta = -5, tau = (beta - 3) / beta = 1.6, tail 4 / (3 - beta).
  absl::StatusOr<Literal> qr = EvaluateRoot(
      Call("(f32[2,1], f32[1])", "p0", "lapack_sgeqrf_ffi", ""), {L("f32[2,1]", "{{3}, {4}}")});
  ASSERT_TRUE(qr.ok()) << qr.status();
  EXPECT_TRUE(LiteralsNear(L("f32[2,1]", "{{-5}, {0.5}}"), qr->tuple_element(0), 1e-6, 1e-6));
  EXPECT_TRUE(LiteralsNear(L("f32[1]", "{1.6}"), qr->tuple_element(1), 1e-6, 1e-6));
  // Q's column: (1, 0) - 1.6 (1, 0.5).
  EXPECT_EVAL_NEAR(EvaluateRoot(Call("f32[2,1]", "p0, p1", "lapack_sorgqr_ffi", ""),
                                {L("f32[2,1]", "{{-5}, {0.5}}"), L("f32[1]", "{1.6}")}),
                   L("f32[2,1]", "{{-0.6}, {-0.8}}"));
}

TEST(EvaluatorLinalgTest, TridiagonalSolveAsLapack) {
  // [[2, 1, 0], [1, 2, 1], [0, 1, 2]] x = (4, 8, 8): x = (1, 2, 3), no row
  // swaps; dl[0] and du[2] (9) lie outside the matrix.  LAPACK leaves U's
  // diagonal (2, 3/2, 4/3) in d, zero in dl[1], and dl[2] as it was.
  const std::string result = "(f64[3], f64[3], f64[3], f64[3,1]{0,1}, s32[])";
  absl::StatusOr<Literal> solved =
      EvaluateRoot(Call(result, "p0, p1, p2, p3", "lapack_dgtsv_ffi", ""),
                   {L("f64[3]", "{9, 1, 1}"), L("f64[3]", "{2, 2, 2}"), L("f64[3]", "{1, 1, 9}"),
                    L("f64[3,1]{0,1}", "{{4}, {8}, {8}}")});
  ASSERT_TRUE(solved.ok()) << solved.status();
  EXPECT_TRUE(LiteralsEqual(L("f64[3]", "{9, 0, 1}"), solved->tuple_element(0)));
  EXPECT_TRUE(LiteralsNear(L("f64[3]", "{2, 1.5, 1.3333333333333333}"), solved->tuple_element(1),
                           1e-15, 1e-15));
  EXPECT_TRUE(
      LiteralsNear(L("f64[3,1]", "{{1}, {2}, {3}}"), solved->tuple_element(3), 1e-15, 1e-15));
  EXPECT_TRUE(LiteralsEqual(L("s32[]", "0"), solved->tuple_element(4)));
  // [[0, 1], [1, 0]] x = (5, 7): the rows swap; x = (7, 5).
  absl::StatusOr<Literal> swapped = EvaluateRoot(
      Call("(f32[2], f32[2], f32[2], f32[2,1], s32[])", "p0, p1, p2, p3", "lapack_sgtsv_ffi", ""),
      {L("f32[2]", "{3, 1}"), L("f32[2]", "{0, 0}"), L("f32[2]", "{1, 3}"),
       L("f32[2,1]", "{{5}, {7}}")});
  ASSERT_TRUE(swapped.ok()) << swapped.status();
  EXPECT_TRUE(LiteralsEqual(L("f32[2]", "{1, 1}"), swapped->tuple_element(1)));
  EXPECT_TRUE(LiteralsEqual(L("f32[2]", "{0, 3}"), swapped->tuple_element(2)));
  EXPECT_TRUE(LiteralsEqual(L("f32[2,1]", "{{7}, {5}}"), swapped->tuple_element(3)));
  // A zero first column: info 1.
  absl::StatusOr<Literal> singular = EvaluateRoot(
      Call("(f32[2], f32[2], f32[2], f32[2,1], s32[])", "p0, p1, p2, p3", "lapack_sgtsv_ffi", ""),
      {L("f32[2]", "{3, 0}"), L("f32[2]", "{0, 1}"), L("f32[2]", "{1, 3}"),
       L("f32[2,1]", "{{5}, {7}}")});
  ASSERT_TRUE(singular.ok()) << singular.status();
  EXPECT_TRUE(LiteralsEqual(L("s32[]", "1"), singular->tuple_element(4)));
}

TEST(EvaluatorLinalgTest, CondensedFormsAsLapack) {
  // [[1, 2, 9], [3, 4, 5], [4, 6, 7]]: one reflector takes column 0's
  // (3, 4) to (beta, 0), beta = -5, tau = (beta - 3) / beta = 1.6, tail
  // 4 / (3 - beta) = 0.5.  H = Q^T A Q, Q = I - 1.6 v v^T, v = (0, 1, 0.5).
  absl::StatusOr<Literal> hessenberg = EvaluateRoot(
      Call("(f64[3,3], f64[2], s32[])", "p0", "lapack_dgehrd_ffi", "high = 3 : i32, low = 1 : i32"),
      {L("f64[3,3]", "{{1, 2, 9}, {3, 4, 5}, {4, 6, 7}}")});
  ASSERT_TRUE(hessenberg.ok()) << hessenberg.status();
  // Q's columns 1 and 2: (-0.6, -0.8) and (-0.8, 0.6); A Q's first row
  // (1, -1.2 - 7.2, -1.6 + 5.4), Q^T (A Q) below.
  EXPECT_TRUE(LiteralsNear(L("f64[2]", "{1.6, 0}"), hessenberg->tuple_element(1), 1e-15, 1e-15));
  const Literal& h = hessenberg->tuple_element(0);
  EXPECT_NEAR(h.data<double>()[3], -5, 1e-14);   // the subdiagonal: beta
  EXPECT_NEAR(h.data<double>()[6], 0.5, 1e-14);  // the reflector's tail
  EXPECT_NEAR(h.data<double>()[1], -8.4, 1e-14);
  EXPECT_NEAR(h.data<double>()[2], 3.8, 1e-14);
  // The symmetric [[2, 1, 0], [1, 2, 1], [0, 1, 2]] is tridiagonal already:
  // no reflection (tau 0), d and e its diagonals; the upper triangle's
  // junk (9) stays with uplo L.
  absl::StatusOr<Literal> tridiagonal =
      EvaluateRoot(Call("(f32[3,3], f32[3], f32[2], f32[2], s32[])", "p0", "lapack_ssytrd_ffi",
                        "uplo = 76 : ui8"),
                   {L("f32[3,3]", "{{2, 9, 9}, {1, 2, 9}, {0, 1, 2}}")});
  ASSERT_TRUE(tridiagonal.ok()) << tridiagonal.status();
  EXPECT_TRUE(LiteralsEqual(L("f32[3,3]", "{{2, 9, 9}, {1, 2, 9}, {0, 1, 2}}"),
                            tridiagonal->tuple_element(0)));
  EXPECT_TRUE(LiteralsEqual(L("f32[3]", "{2, 2, 2}"), tridiagonal->tuple_element(1)));
  EXPECT_TRUE(LiteralsEqual(L("f32[2]", "{1, 1}"), tridiagonal->tuple_element(2)));
  EXPECT_TRUE(LiteralsEqual(L("f32[2]", "{0, 0}"), tridiagonal->tuple_element(3)));
}

TEST(EvaluatorLinalgTest, ComplexSchurForm) {
  // [[2, 1], [1, 2]] (eigenvalues 1 and 3): T upper triangular with them on
  // its diagonal, Z unitary, Z T Z^H = A; sdim and info 0.
  const std::string result = "(c128[2,2], c128[2,2], c128[2], s32[], s32[])";
  absl::StatusOr<Literal> schur =
      EvaluateRoot(Call(result, "p0", "lapack_zgees_ffi", "mode = 86 : ui8, sort = 78 : ui8"),
                   {L("c128[2,2]", "{{(2,0), (1,0)}, {(1,0), (2,0)}}")});
  ASSERT_TRUE(schur.ok()) << schur.status();
  const auto t = schur->tuple_element(0).data<std::complex<double>>();
  const auto z = schur->tuple_element(1).data<std::complex<double>>();
  EXPECT_EQ(t[2], std::complex<double>(0));
  EXPECT_NEAR(std::abs(t[0] * t[3]), 3, 1e-14);
  EXPECT_NEAR(std::real(t[0] + t[3]), 4, 1e-14);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      std::complex<double> product = 0;
      for (int k = 0; k < 2; ++k) {
        for (int l = 0; l < 2; ++l)
          product += z[i * 2 + k] * t[k * 2 + l] * std::conj(z[j * 2 + l]);
      }
      EXPECT_NEAR(std::abs(product - std::complex<double>(i == j ? 2 : 1)), 0, 1e-14);
    }
  }
  EXPECT_TRUE(LiteralsEqual(L("s32[]", "0"), schur->tuple_element(4)));
}

TEST(EvaluatorLinalgTest, RealSchurForm) {
  // A rotation is a standardized block already: T = A, Z = I, 0 +- i.
  const std::string result = "(f64[2,2], f64[2,2], f64[2], f64[2], s32[], s32[])";
  absl::StatusOr<Literal> rotation =
      EvaluateRoot(Call(result, "p0", "lapack_dgees_ffi", "mode = 86 : ui8, sort = 78 : ui8"),
                   {L("f64[2,2]", "{{0, 1}, {-1, 0}}")});
  ASSERT_TRUE(rotation.ok()) << rotation.status();
  EXPECT_TRUE(LiteralsEqual(L("f64[2,2]", "{{0, 1}, {-1, 0}}"), rotation->tuple_element(0)));
  EXPECT_TRUE(LiteralsEqual(L("f64[2,2]", "{{1, 0}, {0, 1}}"), rotation->tuple_element(1)));
  EXPECT_TRUE(LiteralsEqual(L("f64[2]", "{0, 0}"), rotation->tuple_element(2)));
  EXPECT_TRUE(LiteralsEqual(L("f64[2]", "{1, -1}"), rotation->tuple_element(3)));
  // [[2, 1], [1, 2]]: real eigenvalues 3 and 1, so a triangular T.
  absl::StatusOr<Literal> symmetric =
      EvaluateRoot(Call(result, "p0", "lapack_dgees_ffi", "mode = 86 : ui8, sort = 78 : ui8"),
                   {L("f64[2,2]", "{{2, 1}, {1, 2}}")});
  ASSERT_TRUE(symmetric.ok()) << symmetric.status();
  const auto t = symmetric->tuple_element(0).data<double>();
  EXPECT_EQ(t[2], 0);
  EXPECT_NEAR(std::max(t[0], t[3]), 3, 1e-15);
  EXPECT_NEAR(std::min(t[0], t[3]), 1, 1e-15);
  EXPECT_TRUE(LiteralsEqual(L("f64[2]", "{0, 0}"), symmetric->tuple_element(3)));
}

TEST(EvaluatorLinalgTest, RealSchurFormOfRandomMatrices) {
  // Orders past the 2 x 2 cases: Z orthogonal, Z T Z^T = A, T quasi
  // triangular with standardized blocks (equal diagonal, b c < 0) whose
  // eigenvalues are wr +- i wi.
  for (int n : {3, 9, 40}) {
    SCOPED_TRACE(n);
    std::mt19937_64 random(n);
    std::normal_distribution<double> normal;
    Literal a(Shape::MakeArrayWithDescendingLayout(F64, {n, n}));
    for (int64_t i = 0; i < n * n; ++i) a.SetFromDouble(i, normal(random));
    const std::string shape = absl::StrCat("f64[", n, ",", n, "]");
    absl::StatusOr<Literal> schur = EvaluateRoot(
        Call(absl::StrCat("(", shape, ", ", shape, ", f64[", n, "], f64[", n, "], s32[], s32[])"),
             "p0", "lapack_dgees_ffi", "mode = 86 : ui8, sort = 78 : ui8"),
        {a});
    ASSERT_TRUE(schur.ok()) << schur.status();
    const auto t = schur->tuple_element(0).data<double>();
    const auto z = schur->tuple_element(1).data<double>();
    const auto wr = schur->tuple_element(2).data<double>();
    const auto wi = schur->tuple_element(3).data<double>();
    EXPECT_EQ(schur->tuple_element(5).data<int32_t>()[0], 0);
    const auto in = a.data<double>();
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        double product = 0, gram = 0;
        for (int k = 0; k < n; ++k) {
          gram += z[k * n + i] * z[k * n + j];
          for (int l = 0; l < n; ++l) product += z[i * n + k] * t[k * n + l] * z[j * n + l];
        }
        EXPECT_NEAR(product, in[i * n + j], 1e-12 * n) << i << "," << j;
        EXPECT_NEAR(gram, i == j ? 1 : 0, 1e-13 * n) << i << "," << j;
        if (i > j + 1) {
          EXPECT_EQ(t[i * n + j], 0) << i << "," << j;
        }
      }
    }
    for (int i = 0; i + 1 < n; ++i) {
      if (t[(i + 1) * n + i] == 0) continue;
      // A 2 x 2 block at i: no block at i + 1, equal diagonal, b c < 0.
      if (i + 2 < n) {
        EXPECT_EQ(t[(i + 2) * n + i + 1], 0) << i;
      }
      EXPECT_EQ(t[i * n + i], t[(i + 1) * n + i + 1]) << i;
      EXPECT_LT(t[i * n + i + 1] * t[(i + 1) * n + i], 0) << i;
      EXPECT_EQ(wr[i], t[i * n + i]);
      EXPECT_NEAR(wi[i] * wi[i], -t[i * n + i + 1] * t[(i + 1) * n + i], 1e-12);
      EXPECT_EQ(wi[i + 1], -wi[i]);
    }
  }
}

TEST(EvaluatorLinalgTest, MalformedCallsAreClearErrors) {
  auto error = [](absl::StatusOr<Literal> result) {
    return result.ok() ? std::string("ok") : std::string(result.status().message());
  };
  const Literal a = L("f32[2,2]", "{{4, 2}, {2, 3}}");
  EXPECT_THAT(
      error(EvaluateRoot(absl::StrCat("(f32[2,2], s32[]) custom-call(p0), custom_call_target=",
                                      "\"lapack_spotrf_ffi\", backend_config=\"uplo\""),
                         {a})),
      HasSubstr("not an attribute dictionary"));
  EXPECT_THAT(error(EvaluateRoot(Call("(f32[2,2], s32[])", "p0", "lapack_spotrf_ffi", ""), {a})),
              HasSubstr("backend_config has no 'uplo'"));
  EXPECT_THAT(error(EvaluateRoot(
                  Call("f32[2,2]", "p0, p1", "lapack_strsm_ffi",
                       "diag = 78 : ui8, side = 76 : ui8, trans_x = 88 : ui8, uplo = 76 : ui8"),
                  {a, a})),
              HasSubstr("'trans_x' is 88, not one of 'NTC'"));
  EXPECT_THAT(
      error(EvaluateRoot(Call("(f32[2,2], s32[3], s32[])", "p0", "lapack_sgetrf_ffi", ""), {a})),
      HasSubstr("result 1 (pivots) is s32[3]"));
  EXPECT_THAT(error(EvaluateRoot(
                  Call("(f32[2,2], s32[])", "p0", "lapack_dpotrf_ffi", "uplo = 76 : ui8"), {a})),
              HasSubstr("not a f64 array"));
  EXPECT_THAT(
      error(EvaluateRoot("f16[2,2] cholesky(p0), lower=true", {L("f16[2,2]", "{{4, 2}, {2, 3}}")})),
      HasSubstr("element type f16"));
  EXPECT_THAT(error(EvaluateRoot("f32[3,1] triangular-solve(p0, p1), left_side=true, lower=true, "
                                 "transpose_a=NO_TRANSPOSE",
                                 {a, L("f32[3,1]", "{{1}, {2}, {3}}")})),
              HasSubstr("does not fit b"));
  EXPECT_THAT(error(EvaluateRoot(Call("f32[2,2]", "p0, p1", "lapack_sorgqr_ffi", ""),
                                 {a, L("f32[3]", "{1, 1, 1}")})),
              HasSubstr("needs reflectors <= columns <= rows"));
  EXPECT_THAT(error(EvaluateRoot(Call("(f32[2,2], f32[2], f32[2,2], f32[2,2], s32[])", "p0",
                                      "lapack_sgesdd_ffi", "mode = 79 : ui8"),
                                 {a})),
              HasSubstr("'mode' is 79, not one of 'ASN'"));
  EXPECT_THAT(error(EvaluateRoot(Call("(f32[2,2], f32[3], f32[2,2], f32[2,2], s32[])", "p0",
                                      "lapack_sgesdd_ffi", "mode = 65 : ui8"),
                                 {a})),
              HasSubstr("result 1 (singular values) is f32[3], not f32[2]"));
  EXPECT_THAT(error(EvaluateRoot(Call("(f32[2,2], f32[2], f32[2,1], f32[2,2], s32[])", "p0",
                                      "lapack_sgesdd_ffi", "mode = 65 : ui8"),
                                 {a})),
              HasSubstr("result 2 (u) is f32[2,1], not f32[2,2]"));
  EXPECT_THAT(error(EvaluateRoot(Call("(c64[2,2], c64[2], s32[])", "p0", "lapack_cheevd_ffi",
                                      "mode = 86 : ui8, uplo = 76 : ui8"),
                                 {L("c64[2,2]", "{{(1, 0), (0, 0)}, {(0, 0), (1, 0)}}")})),
              HasSubstr("result 1 (eigenvalues) is c64[2], not f32[2]"));
  EXPECT_THAT(error(EvaluateRoot(Call("(f32[2,3], f32[2], s32[])", "p0", "lapack_ssyevd_ffi",
                                      "mode = 86 : ui8, uplo = 76 : ui8"),
                                 {L("f32[2,3]", "{{1, 2, 3}, {4, 5, 6}}")})),
              HasSubstr("not square"));
  EXPECT_THAT(error(EvaluateRoot(
                  Call("(f32[2], f32[2], f32[2,2], f32[2,2], s32[])", "p0", "lapack_sgeev_ffi",
                       "compute_left = 78 : ui8, compute_right = 86 : ui8"),
                  {a})),
              HasSubstr("result 2 (vl) is f32[2,2], not c64[2,2]"));
  EXPECT_THAT(error(EvaluateRoot(Call("(f32[2], f32[3], f32[3], f32[3,1], s32[])", "p0, p1, p2, p3",
                                      "lapack_sgtsv_ffi", ""),
                                 {L("f32[2]", "{1, 2}"), L("f32[3]", "{1, 2, 3}"),
                                  L("f32[3]", "{1, 2, 3}"), L("f32[3,1]", "{{1}, {2}, {3}}")})),
              HasSubstr("operand dl is f32[2], not f32[3] to fit b f32[3,1]"));
  EXPECT_THAT(error(EvaluateRoot(Call("(f32[2,2], f32[1], s32[])", "p0", "lapack_sgehrd_ffi",
                                      "high = 3 : i32, low = 1 : i32"),
                                 {a})),
              HasSubstr("low 1 and high 3 do not satisfy 1 <= low <= high <= n for n = 2"));
  EXPECT_THAT(error(EvaluateRoot(Call("(f32[2,2], f32[2], f32[1], f32[1], s32[])", "p0",
                                      "lapack_chetrd_ffi", "uplo = 76 : ui8"),
                                 {a})),
              HasSubstr("not a c64 array"));
  EXPECT_THAT(error(EvaluateRoot(Call("(c64[2,2], c64[2], f32[1], c64[1], s32[])", "p0",
                                      "lapack_chetrd_ffi", "uplo = 76 : ui8"),
                                 {L("c64[2,2]", "{{(1,0), (2,0)}, {(3,0), (4,0)}}")})),
              HasSubstr("result 1 (d) is c64[2], not f32[2]"));
  const Literal c = L("c64[2,2]", "{{(1,0), (2,0)}, {(3,0), (4,0)}}");
  EXPECT_THAT(error(EvaluateRoot(Call("(c64[2,2], c64[2,2], c64[2], s32[], s32[])", "p0",
                                      "lapack_cgees_ffi", "mode = 86 : ui8, sort = 83 : ui8"),
                                 {c})),
              HasSubstr("sorting the Schur form ('S') needs a select function"));
  EXPECT_THAT(error(EvaluateRoot(Call("(c64[2,2], c64[2,2], c64[3], s32[], s32[])", "p0",
                                      "lapack_cgees_ffi", "mode = 86 : ui8, sort = 78 : ui8"),
                                 {c})),
              HasSubstr("result 2 (eigenvalues) is c64[3], not c64[2]"));
  // Other LAPACK routines stay unsupported, by name.
  EXPECT_THAT(
      error(EvaluateRoot(Call("(f32[2,2], f32[2], f32[2])", "p0, p1", "lapack_sgeqp3_ffi", ""),
                         {a, L("f32[2]", "{0, 0}")})),
      HasSubstr("operand jpvt is f32[2]"));
  EXPECT_THAT(error(EvaluateRoot(Call("(f32[2,2], s32[])", "p0", "lapack_sgerqf_ffi", ""), {a})),
              HasSubstr("'lapack_sgerqf_ffi' is not supported"));
}

// sum_k u(i, k) s(k) vt(k, j) of the row-major 2 x 2 u, vt.
std::vector<float> Reconstruct2x2(absl::Span<const float> u, absl::Span<const float> s,
                                  absl::Span<const float> vt) {
  std::vector<float> a(4, 0);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      for (int k = 0; k < 2; ++k) a[i * 2 + j] += u[i * 2 + k] * s[k] * vt[k * 2 + j];
    }
  }
  return a;
}

TEST(EvaluatorLinalgTest, HermitianEigenFromOneTriangle) {
  // [[2, 1], [1, 2]]: eigenvalues 1 and 3, vectors (1, -1) and (1, 1) / sqrt 2;
  // the upper call reads only the upper triangle (99 is junk).
  for (const auto& [config, matrix] :
       {std::pair{"mode = 86 : ui8, uplo = 76 : ui8", "{{2, 99}, {1, 2}}"},
        std::pair{"mode = 86 : ui8, uplo = 85 : ui8", "{{2, 1}, {99, 2}}"}}) {
    absl::StatusOr<Literal> eigen =
        EvaluateRoot(Call("(f32[2,2], f32[2], s32[])", "p0", "lapack_ssyevd_ffi", config),
                     {L("f32[2,2]", matrix)});
    ASSERT_TRUE(eigen.ok()) << eigen.status();
    EXPECT_TRUE(LiteralsNear(L("f32[2]", "{1, 3}"), eigen->tuple_element(1), 1e-6, 1e-6));
    absl::Span<const float> v = eigen->tuple_element(0).data<float>();
    for (float x : v) EXPECT_NEAR(std::abs(x), 1 / std::sqrt(2.0f), 1e-6) << config;
    EXPECT_NEAR(v[0], -v[2], 1e-6) << "the first vector is (1, -1) up to sign";
    EXPECT_NEAR(v[1], v[3], 1e-6) << "the second is (1, 1) up to sign";
    EXPECT_TRUE(LiteralsEqual(L("s32[]", "0"), eigen->tuple_element(2)));
  }
  // Hermitian [[2, i], [-i, 2]]: eigenvalues 1 and 3 (real, of type f32).
  absl::StatusOr<Literal> complex =
      EvaluateRoot(Call("(c64[2,2], f32[2], s32[])", "p0", "lapack_cheevd_ffi",
                        "mode = 86 : ui8, uplo = 76 : ui8"),
                   {L("c64[2,2]", "{{(2, 0), (0, 1)}, {(0, -1), (2, 0)}}")});
  ASSERT_TRUE(complex.ok()) << complex.status();
  EXPECT_TRUE(LiteralsNear(L("f32[2]", "{1, 3}"), complex->tuple_element(1), 1e-6, 1e-6));
  // Non-finite input: NaN, not an endless iteration.
  absl::StatusOr<Literal> nan =
      EvaluateRoot(Call("(f64[2,2], f64[2], s32[])", "p0", "lapack_dsyevd_ffi",
                        "mode = 78 : ui8, uplo = 76 : ui8"),
                   {L("f64[2,2]", "{{1, 0}, {nan, 1}}")});
  ASSERT_TRUE(nan.ok()) << nan.status();
  EXPECT_TRUE(std::isnan(nan->tuple_element(1).data<double>()[0]));
}

TEST(EvaluatorLinalgTest, GeneralEigenKnownAnswers) {
  // [[0, -2], [2, 0]] rotates: eigenvalues +-2i, a conjugate pair.
  absl::StatusOr<Literal> rotation =
      EvaluateRoot(Call("(f32[2], f32[2], c64[2,2], c64[2,2], s32[])", "p0", "lapack_sgeev_ffi",
                        "compute_left = 86 : ui8, compute_right = 86 : ui8"),
                   {L("f32[2,2]", "{{0, -2}, {2, 0}}")});
  ASSERT_TRUE(rotation.ok()) << rotation.status();
  absl::Span<const float> wr = rotation->tuple_element(0).data<float>();
  absl::Span<const float> wi = rotation->tuple_element(1).data<float>();
  EXPECT_NEAR(wr[0], 0, 1e-6);
  EXPECT_NEAR(wr[1], 0, 1e-6);
  EXPECT_NEAR(std::abs(wi[0]), 2, 1e-6);
  EXPECT_NEAR(wi[0], -wi[1], 1e-6);
  absl::Span<const complex64> vr = rotation->tuple_element(3).data<complex64>();
  for (int k = 0; k < 2; ++k) {
    // Column k: A v = w v with |v| = 1.
    const complex64 w(wr[k], wi[k]);
    const complex64 v0 = vr[0 * 2 + k], v1 = vr[1 * 2 + k];
    EXPECT_NEAR(std::abs(-2.0f * v1 - w * v0), 0, 1e-5) << k;
    EXPECT_NEAR(std::abs(2.0f * v0 - w * v1), 0, 1e-5) << k;
    EXPECT_NEAR(std::norm(v0) + std::norm(v1), 1, 1e-6) << k;
  }
  // Triangular [[1, 1], [0, 3]]: eigenvalues 1 and 3 exactly real (wi 0)
  // with real vectors; only left ones were asked for, so vr is zero.
  absl::StatusOr<Literal> triangular =
      EvaluateRoot(Call("(f64[2], f64[2], c128[2,2], c128[2,2], s32[])", "p0", "lapack_dgeev_ffi",
                        "compute_left = 86 : ui8, compute_right = 78 : ui8"),
                   {L("f64[2,2]", "{{1, 1}, {0, 3}}")});
  ASSERT_TRUE(triangular.ok()) << triangular.status();
  absl::Span<const double> values = triangular->tuple_element(0).data<double>();
  EXPECT_NEAR(std::min(values[0], values[1]), 1, 1e-14);
  EXPECT_NEAR(std::max(values[0], values[1]), 3, 1e-14);
  EXPECT_TRUE(LiteralsEqual(L("f64[2]", "{0, 0}"), triangular->tuple_element(1)));
  absl::Span<const complex128> vl = triangular->tuple_element(2).data<complex128>();
  for (const complex128& x : vl) EXPECT_EQ(x.imag(), 0);
  for (const complex128& x : triangular->tuple_element(3).data<complex128>()) {
    EXPECT_EQ(x, complex128(0));
  }
  // The left eigenvector of 3 is (0, 1): u^H A = 3 u^H.
  const int three = values[0] > values[1] ? 0 : 1;
  EXPECT_NEAR(std::abs(vl[0 * 2 + three]), 0, 1e-14);
  EXPECT_NEAR(vl[1 * 2 + three].real(), 1, 1e-14);
}

TEST(EvaluatorLinalgTest, SvdKnownAnswers) {
  // diag(3, -4): singular values 4, 3, and U S V^T gives it back.
  absl::StatusOr<Literal> svd = EvaluateRoot(Call("(f32[2,2], f32[2], f32[2,2], f32[2,2], s32[])",
                                                  "p0", "lapack_sgesdd_ffi", "mode = 65 : ui8"),
                                             {L("f32[2,2]", "{{3, 0}, {0, -4}}")});
  ASSERT_TRUE(svd.ok()) << svd.status();
  EXPECT_TRUE(LiteralsNear(L("f32[2]", "{4, 3}"), svd->tuple_element(1), 1e-6, 1e-6));
  EXPECT_THAT(
      Reconstruct2x2(svd->tuple_element(2).data<float>(), svd->tuple_element(1).data<float>(),
                     svd->tuple_element(3).data<float>()),
      ::testing::Pointwise(::testing::FloatNear(1e-6), std::vector<float>{3, 0, 0, -4}));
  // Rank one [[1, 1], [1, 1]]: 2 and 0, U still orthogonal (its second
  // column a completion of the first).
  absl::StatusOr<Literal> rank_one =
      EvaluateRoot(Call("(f32[2,2], f32[2], f32[2,2], f32[2,2], s32[])", "p0", "lapack_sgesvd_ffi",
                        "mode = 83 : ui8"),
                   {L("f32[2,2]", "{{1, 1}, {1, 1}}")});
  ASSERT_TRUE(rank_one.ok()) << rank_one.status();
  EXPECT_TRUE(LiteralsNear(L("f32[2]", "{2, 0}"), rank_one->tuple_element(1), 1e-6, 1e-6));
  absl::Span<const float> u = rank_one->tuple_element(2).data<float>();
  EXPECT_NEAR(u[0] * u[1] + u[2] * u[3], 0, 1e-6);
  EXPECT_NEAR(u[1] * u[1] + u[3] * u[3], 1, 1e-6);
  // Tall 3 x 2 with full U: its third column completes the basis (+-e3).
  absl::StatusOr<Literal> tall = EvaluateRoot(Call("(f64[3,2], f64[2], f64[3,3], f64[2,2], s32[])",
                                                   "p0", "lapack_dgesdd_ffi", "mode = 65 : ui8"),
                                              {L("f64[3,2]", "{{0, 2}, {1, 0}, {0, 0}}")});
  ASSERT_TRUE(tall.ok()) << tall.status();
  EXPECT_TRUE(LiteralsNear(L("f64[2]", "{2, 1}"), tall->tuple_element(1), 1e-12, 1e-12));
  absl::Span<const double> full_u = tall->tuple_element(2).data<double>();
  EXPECT_NEAR(std::abs(full_u[0 * 3 + 0]), 1, 1e-12);  // column 0 is +-e1 (s = 2)
  EXPECT_NEAR(std::abs(full_u[1 * 3 + 1]), 1, 1e-12);  // column 1 is +-e2
  EXPECT_NEAR(std::abs(full_u[2 * 3 + 2]), 1, 1e-12);  // the completion +-e3
  // Values only ('N'): u and vt zero.
  absl::StatusOr<Literal> values =
      EvaluateRoot(Call("(f32[2,2], f32[2], f32[2,2], f32[2,2], s32[])", "p0", "lapack_sgesdd_ffi",
                        "mode = 78 : ui8"),
                   {L("f32[2,2]", "{{0, 5}, {0, 0}}")});
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_TRUE(LiteralsNear(L("f32[2]", "{5, 0}"), values->tuple_element(1), 1e-6, 1e-6));
  EXPECT_TRUE(LiteralsEqual(L("f32[2,2]", "{{0, 0}, {0, 0}}"), values->tuple_element(2)));
}

}  // namespace
}  // namespace evaluator_test
}  // namespace tessera
