// Linear algebra (hlo/analysis/linalg_op.h) on the CPU backend:
//  - JAX's LAPACK programs (testdata/make_jax_linalg.py: jnp.linalg.solve,
//    inv, det, slogdet, cholesky, qr, eigh, svd, pinv, lstsq, lu_factor,
//    cho_solve, solve_triangular, ...) on the evaluator and the CPU backend
//    against XLA's own results;
//  - XLA's cholesky and triangular-solve and the LAPACK calls on random
//    matrices against the evaluator, with no fallback: every option, LU
//    panels and trailing updates (sizes past 32), wide and tall LU, batches
//    split over threads, column-major operands and results.
#include <algorithm>
#include <cmath>
#include <complex>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/cpu_test_util.h"
#include "backends/cpu/eigen_dot.h"
#include "backends/cpu/eigen_factorizations.h"
#include "backends/cpu/lapack_library.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator_test_util.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/npy.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace cpu {
namespace {

using testing::CheckModule;
using testing::Clone;
using testing::Counts;
using testing::ReadAll;

const std::filesystem::path kJaxLinalg = "backends/cpu/testdata/jax_linalg";

struct JaxProgram {
  std::string name;
  int inputs = 0;
  int outputs = 0;
  double tolerance = 0;
};

void PrintTo(const JaxProgram& program, std::ostream* out) { *out << program.name; }

std::vector<JaxProgram> JaxPrograms() {
  std::vector<JaxProgram> programs;
  std::ifstream in(kJaxLinalg / "INDEX");
  JaxProgram p;
  while (in >> p.name >> p.inputs >> p.outputs >> p.tolerance) programs.push_back(p);
  return programs;
}

void ExpectXlaResults(const JaxProgram& program, const Literal& result, absl::string_view who) {
  std::vector<const Literal*> leaves = result.Leaves();
  ASSERT_EQ(leaves.size(), static_cast<size_t>(program.outputs)) << who;
  for (int i = 0; i < program.outputs; ++i) {
    absl::StatusOr<Literal> want =
        ReadNpyFile((kJaxLinalg / program.name / absl::StrCat("out", i, ".npy")).string());
    ASSERT_TRUE(want.ok()) << want.status();
    // Integers exactly, floats within tolerance * (1 + |XLA's|), NaN only
    // where XLA has NaN.
    EXPECT_TRUE(
        evaluator_test::LiteralsNear(*want, *leaves[i], program.tolerance, program.tolerance))
        << program.name << " output " << i << " on " << who;
  }
}

class JaxLinalgTest : public ::testing::TestWithParam<JaxProgram> {};

TEST_P(JaxLinalgTest, EvaluatorAndCpuGiveXlasResults) {
  const JaxProgram& program = GetParam();
  const std::string text = ReadAll(kJaxLinalg / program.name / "module.hlo");
  ASSERT_FALSE(text.empty()) << "missing testdata " << program.name;
  std::vector<Literal> inputs;
  for (int i = 0; i < program.inputs; ++i) {
    absl::StatusOr<Literal> input =
        ReadNpyFile((kJaxLinalg / program.name / absl::StrCat("in", i, ".npy")).string());
    ASSERT_TRUE(input.ok()) << input.status();
    inputs.push_back(*std::move(input));
  }
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Literal> evaluated = EvaluateModule(**module, inputs);
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  ExpectXlaResults(program, *evaluated, "the evaluator");

  std::vector<std::string> fallbacks;
  absl::StatusOr<std::unique_ptr<HloExecutable>> executable =
      CompileForCpuExecutable(*std::move(module), CpuCompileOptions(), &fallbacks);
  ASSERT_TRUE(executable.ok()) << executable.status();
  // Every op runs natively (gtsv, gehrd, sytrd/hetrd and gees only with a
  // LAPACK; the evaluator runs them otherwise).
  for (const std::string& fallback : fallbacks) {
    const bool lapack_only =
        absl::StrContains(fallback, "gtsv") || absl::StrContains(fallback, "gehrd") ||
        absl::StrContains(fallback, "trd_ffi") || absl::StrContains(fallback, "gees");
    EXPECT_TRUE(lapack::Load() == nullptr && lapack_only) << fallback;
  }
  absl::StatusOr<Literal> ran = (*executable)->RunLiterals(inputs);
  ASSERT_TRUE(ran.ok()) << ran.status();
  ExpectXlaResults(program, *ran, "the CPU backend");
}

INSTANTIATE_TEST_SUITE_P(Programs, JaxLinalgTest, ::testing::ValuesIn(JaxPrograms()),
                         [](const ::testing::TestParamInfo<JaxProgram>& info) {
                           return info.param.name;
                         });

TEST(JaxLinalgTest, TestdataIsPresent) { EXPECT_GE(JaxPrograms().size(), 55u); }

// ---------------------------------------------------------------------------
// Random matrices against the evaluator.

enum class Kind { kGeneral, kPositiveDefinite, kTriangular };

// A batch of matrices of `shape` (logical row-major data): general
// (normal entries), Hermitian positive definite (X X^H + n I), or with a
// dominant diagonal (well-conditioned triangles, unit or not).
Literal Matrices(const Shape& shape, Kind kind, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal;
  const bool complex = IsComplexType(shape.element_type());
  const int64_t rows = shape.dimensions()[shape.rank() - 2];
  const int64_t cols = shape.dimensions()[shape.rank() - 1];
  const int64_t batch = shape.ElementCount() / std::max<int64_t>(1, rows * cols);
  Literal literal(shape);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<std::complex<double>> x(rows * cols);
    for (auto& v : x) v = {normal(random), complex ? normal(random) : 0.0};
    std::vector<std::complex<double>> m = x;
    if (kind == Kind::kPositiveDefinite) {
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) {
          std::complex<double> sum = i == j ? static_cast<double>(rows) : 0.0;
          for (int64_t k = 0; k < cols; ++k) sum += x[i * cols + k] * std::conj(x[j * cols + k]);
          m[i * cols + j] = sum;
        }
      }
    } else if (kind == Kind::kTriangular) {
      // Small off the diagonal, so that a unit-diagonal solve is well
      // conditioned too.
      for (auto& v : m) v /= static_cast<double>(rows);
      for (int64_t i = 0; i < std::min(rows, cols); ++i) m[i * cols + i] += 2.0;
    }
    for (int64_t e = 0; e < rows * cols; ++e) {
      if (complex) {
        literal.SetFromComplex(b * rows * cols + e, m[e]);
      } else {
        literal.SetFromDouble(b * rows * cols + e, m[e].real());
      }
    }
  }
  return literal;
}

void CheckNative(const std::string& text, std::vector<Literal> arguments) {
  SCOPED_TRACE(text);
  Counts counts;
  // Only these: random entries make ill-conditioned systems, whose
  // results two summation orders do not agree on.
  CheckModule(text, std::move(arguments), &counts, CpuCompileOptions(),
              /*only_these_arguments=*/true);
  EXPECT_EQ(counts.fallback, 0);
}

TEST(LinalgTest, XlaCholeskyMatchesTheEvaluator) {
  for (const char* type : {"f32", "f64", "c64", "c128"}) {
    for (const char* lower : {"true", "false"}) {
      // 200: blocked, the updates through the GEMM kernels.
      for (const char* dims : {"1,1", "3,40,40", "70,70", "200,200"}) {
        const std::string text = absl::StrFormat(R"(
HloModule m
ENTRY e {
  a = %s[%s] parameter(0)
  ROOT c = %s[%s] cholesky(a), lower=%s
})",
                                                 type, dims, type, dims, lower);
        absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
        ASSERT_TRUE(module.ok()) << module.status();
        const Shape& shape = (*module)->entry_computation()->parameter_instruction(0)->shape();
        std::vector<Literal> arguments;
        arguments.push_back(Matrices(shape, Kind::kPositiveDefinite, 5));
        CheckNative(text, std::move(arguments));
      }
    }
  }
}

TEST(LinalgTest, XlaCholeskyOfAnIndefiniteMatrixIsNan) {
  const std::string text = R"(
HloModule m
ENTRY e {
  a = f32[2,2,2] parameter(0)
  ROOT c = f32[2,2,2] cholesky(a), lower=true
})";
  std::vector<Literal> arguments;
  arguments.push_back(Literal::CreateFromVector<float>({2, 2, 2}, {4, 2, 2, 3, 1, 2, 2, 1}));
  CheckNative(text, Clone(arguments));
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok());
  absl::StatusOr<Literal> result = EvaluateModule(**module, arguments);
  ASSERT_TRUE(result.ok()) << result.status();
  const std::vector<float> got(result->data<float>().begin(), result->data<float>().end());
  EXPECT_FLOAT_EQ(got[0], 2);
  EXPECT_EQ(got[1], 0);
  EXPECT_FLOAT_EQ(got[2], 1);
  EXPECT_FLOAT_EQ(got[3], std::sqrt(2.0f));
  for (int i = 4; i < 8; ++i) EXPECT_TRUE(std::isnan(got[i])) << i;
}

TEST(LinalgTest, XlaTriangularSolveMatchesTheEvaluator) {
  // 37: Eigen's solves; 150: BLAS's trsm where a LAPACK loads, else
  // blocked through the GEMM kernels (batches of 2 split over the pool, a
  // single matrix's updates split over it).
  for (const auto& [type, n, batch] : std::vector<std::tuple<std::string, int, int>>{
           {"f32", 37, 2}, {"c128", 37, 2}, {"f32", 150, 2}, {"c64", 150, 1}, {"f64", 150, 1}}) {
    for (bool left : {true, false}) {
      for (const char* lower : {"true", "false"}) {
        for (const char* unit : {"true", "false"}) {
          for (const char* transpose : {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}) {
            const std::string b_dims =
                left ? absl::StrCat(batch, ",", n, ",70") : absl::StrCat(batch, ",70,", n);
            const std::string text = absl::StrFormat(
                R"(
HloModule m
ENTRY e {
  a = %s[%d,%d,%d] parameter(0)
  b = %s[%s] parameter(1)
  ROOT x = %s[%s] triangular-solve(a, b), left_side=%s, lower=%s, unit_diagonal=%s, transpose_a=%s
})",
                type, batch, n, n, type, b_dims, type, b_dims, left ? "true" : "false", lower, unit,
                transpose);
            absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
            ASSERT_TRUE(module.ok()) << module.status();
            const HloComputation* entry = (*module)->entry_computation();
            std::vector<Literal> arguments;
            arguments.push_back(
                Matrices(entry->parameter_instruction(0)->shape(), Kind::kTriangular, 1));
            arguments.push_back(
                Matrices(entry->parameter_instruction(1)->shape(), Kind::kGeneral, 2));
            CheckNative(text, std::move(arguments));
          }
        }
      }
    }
  }
}

// JAX's LAPACK calls as JAX writes them: column-major operands and results.
TEST(LinalgTest, LapackCallsMatchTheEvaluator) {
  struct Case {
    std::string type, letter, dims, pivots, info;
  };
  // A batch of many small matrices (split over threads), panels and a
  // trailing update (70), wide and tall matrices, an empty batch.
  const std::vector<Case> lu_cases = {
      {"f32", "s", "300,4,4", "300,4", "300"}, {"f32", "s", "2,70,70", "2,70", "2"},
      {"f64", "d", "45,100", "45", ""},        {"c64", "c", "100,45", "45", ""},
      {"c128", "z", "3,33,33", "3,33", "3"},   {"f32", "s", "0,5,5", "0,5", "0"},
  };
  for (const Case& c : lu_cases) {
    const int64_t rank = std::count(c.dims.begin(), c.dims.end(), ',') + 1;
    const std::string layout = rank == 3 ? "{1,2,0}" : "{0,1}";
    const std::string text = absl::StrFormat(R"(
HloModule m
ENTRY e {
  a = %s[%s]%s parameter(0)
  ROOT lu = (%s[%s]%s, s32[%s], s32[%s]) custom-call(a), custom_call_target="lapack_%sgetrf_ffi", operand_layout_constraints={%s[%s]%s}, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={}
})",
                                             c.type, c.dims, layout, c.type, c.dims, layout,
                                             c.pivots, c.info, c.letter, c.type, c.dims, layout);
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    std::vector<Literal> arguments;
    arguments.push_back(Matrices((*module)->entry_computation()->parameter_instruction(0)->shape(),
                                 Kind::kGeneral, 3));
    CheckNative(text, std::move(arguments));
  }
  for (const char* uplo : {"76", "85"}) {
    // 24: Eigen's LLT on each of a batch; 160: blocked.
    for (const char* shape : {"c64[5,24,24]{1,2,0}", "c64[1,160,160]{1,2,0}"}) {
      const std::string batch = absl::StrContains(shape, "[5,") ? "5" : "1";
      const std::string text = absl::StrCat(
          R"(
HloModule m
ENTRY e {
  a = )",
          shape, R"( parameter(0)
  ROOT c = ()",
          shape, ", s32[", batch,
          R"(]) custom-call(a), custom_call_target="lapack_cpotrf_ffi", output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={uplo = )",
          uplo, R"( : ui8}
})");
      absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
      ASSERT_TRUE(module.ok()) << module.status();
      std::vector<Literal> arguments;
      arguments.push_back(
          Matrices((*module)->entry_computation()->parameter_instruction(0)->shape(),
                   Kind::kPositiveDefinite, 4));
      CheckNative(text, std::move(arguments));
    }
  }
  for (const char* side : {"76", "82"}) {
    for (const char* trans : {"78", "84", "67"}) {
      const bool left = std::string(side) == "76";
      const std::string b = left ? "f64[3,20,6]{1,2,0}" : "f64[3,6,20]{1,2,0}";
      const std::string text = absl::StrCat(
          R"(
HloModule m
ENTRY e {
  a = f64[3,20,20]{1,2,0} parameter(0)
  b = )",
          b, R"( parameter(1)
  ROOT x = )",
          b,
          R"( custom-call(a, b), custom_call_target="lapack_dtrsm_ffi", output_to_operand_aliasing={{}: (1, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={diag = 78 : ui8, side = )",
          side, R"( : ui8, trans_x = )", trans,
          R"( : ui8, uplo = 85 : ui8}
})");
      absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
      ASSERT_TRUE(module.ok()) << module.status();
      const HloComputation* entry = (*module)->entry_computation();
      std::vector<Literal> arguments;
      arguments.push_back(Matrices(entry->parameter_instruction(0)->shape(), Kind::kTriangular, 6));
      arguments.push_back(Matrices(entry->parameter_instruction(1)->shape(), Kind::kGeneral, 7));
      CheckNative(text, std::move(arguments));
    }
  }
}

// The Hermitian eigendecomposition and the SVD have vectors only unique up
// to sign (phase), which the CPU backend's Eigen solvers and the
// evaluator's Jacobi rotations choose differently; these modules return
// what is unique: the values, the reconstruction V diag(w) V^H (U diag(s)
// V^H), and the Gram matrices of the vectors (identities).

// Text of ops making `name` = x^H from the batch of matrices x (type,
// dims written as "B,r,c" for x, "B,c,r" for the result).
std::string AdjointOp(const std::string& name, const std::string& x, const std::string& type,
                      const std::string& real, const std::string& transposed_dims) {
  const bool complex = type == "c64" || type == "c128";
  const std::string transposed = complex ? name + "_t" : name;
  std::string text = absl::StrFormat("  %s = %s[%s] transpose(%s), dimensions={0,2,1}\n",
                                     transposed, type, transposed_dims, x);
  if (complex) {
    text += absl::StrFormat(
        "  %s_re = %s[%s] real(%s)\n  %s_im = %s[%s] imag(%s)\n  %s_neg = %s[%s] negate(%s_im)\n"
        "  %s = %s[%s] complex(%s_re, %s_neg)\n",
        name, real, transposed_dims, transposed, name, real, transposed_dims, transposed, name,
        real, transposed_dims, name, name, type, transposed_dims, name, name);
  }
  return text;
}

std::string RealTypeName(const std::string& type) {
  return type == "c64" ? "f32" : type == "c128" ? "f64" : type;
}

std::string LapackLetter(const std::string& type) {
  return type == "f32" ? "s" : type == "f64" ? "d" : type == "c64" ? "c" : "z";
}

std::string EigenModule(const std::string& type, int64_t batch, int64_t n, const char* uplo) {
  const std::string real = RealTypeName(type);
  const bool complex = real != type;
  const std::string square = absl::StrCat(batch, ",", n, ",", n);
  std::string text = absl::StrFormat(
      R"(HloModule m
ENTRY e {
  a = %s[%s]{1,2,0} parameter(0)
  r = (%s[%s]{1,2,0}, %s[%d,%d], s32[%d]) custom-call(a), custom_call_target="lapack_%s%s_ffi", output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={mode = 86 : ui8, uplo = %s : ui8}
  v = %s[%s]{1,2,0} get-tuple-element(r), index=0
  w = %s[%d,%d] get-tuple-element(r), index=1
  info = s32[%d] get-tuple-element(r), index=2
)",
      type, square, type, square, real, batch, n, batch, LapackLetter(type),
      complex ? "heevd" : "syevd", uplo, type, square, real, batch, n, batch);
  text += AdjointOp("vh", "v", type, real, square);
  text += absl::StrFormat(
      R"(  wt = %s[%d,%d] convert(w)
  wb = %s[%s] broadcast(wt), dimensions={0,2}
  vw = %s[%s] multiply(v, wb)
  rec = %s[%s] dot(vw, vh), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  gram = %s[%s] dot(vh, v), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  ROOT t = (%s[%d,%d], %s[%s], %s[%s], s32[%d]) tuple(w, rec, gram, info)
})",
      type, batch, n, type, square, type, square, type, square, type, square, real, batch, n, type,
      square, type, square, batch);
  return text;
}

// mode: 'A', 'S' or 'N' (the raw u and vt then, zero on both sides).
std::string SvdModule(const std::string& type, int64_t batch, int64_t m, int64_t n, char mode) {
  const std::string real = RealTypeName(type);
  const int64_t k = std::min(m, n);
  const bool full = mode != 'S';
  const int64_t u_cols = full ? m : k, vt_rows = full ? n : k;
  auto dims = [&](int64_t r, int64_t c) { return absl::StrCat(batch, ",", r, ",", c); };
  std::string text = absl::StrFormat(
      R"(HloModule m
ENTRY e {
  a = %s[%s]{1,2,0} parameter(0)
  r = (%s[%s]{1,2,0}, %s[%d,%d], %s[%s]{1,2,0}, %s[%s]{1,2,0}, s32[%d]) custom-call(a), custom_call_target="lapack_%sgesdd_ffi", output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={mode = %d : ui8}
  s = %s[%d,%d] get-tuple-element(r), index=1
  u = %s[%s]{1,2,0} get-tuple-element(r), index=2
  vt = %s[%s]{1,2,0} get-tuple-element(r), index=3
  info = s32[%d] get-tuple-element(r), index=4
)",
      type, dims(m, n), type, dims(m, n), real, batch, k, type, dims(m, u_cols), type,
      dims(vt_rows, n), batch, LapackLetter(type), static_cast<int>(mode), real, batch, k, type,
      dims(m, u_cols), type, dims(vt_rows, n), batch);
  if (mode == 'N') {
    return text + absl::StrFormat(
                      "  ROOT t = (%s[%d,%d], %s[%s], %s[%s], s32[%d]) tuple(s, u, vt, info)\n}",
                      real, batch, k, type, dims(m, u_cols), type, dims(vt_rows, n), batch);
  }
  text += AdjointOp("uh", "u", type, real, dims(u_cols, m));
  text += AdjointOp("vh", "vt", type, real, dims(n, vt_rows));
  text += absl::StrFormat(
      R"(  uk = %s[%s] slice(u), slice={[0:%d], [0:%d], [0:%d]}
  vk = %s[%s] slice(vt), slice={[0:%d], [0:%d], [0:%d]}
  st = %s[%d,%d] convert(s)
  sb = %s[%s] broadcast(st), dimensions={0,2}
  us = %s[%s] multiply(uk, sb)
  rec = %s[%s] dot(us, vk), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  ugram = %s[%s] dot(uh, u), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  vgram = %s[%s] dot(vt, vh), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  ROOT t = (%s[%d,%d], %s[%s], %s[%s], %s[%s], s32[%d]) tuple(s, rec, ugram, vgram, info)
})",
      type, dims(m, k), batch, m, k, type, dims(k, n), batch, k, n, type, batch, k, type,
      dims(m, k), type, dims(m, k), type, dims(m, n), type, dims(u_cols, u_cols), type,
      dims(vt_rows, vt_rows), real, batch, k, type, dims(m, n), type, dims(u_cols, u_cols), type,
      dims(vt_rows, vt_rows), batch);
  return text;
}

void CheckSpectralModule(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status() << "\n" << text;
  std::vector<Literal> arguments;
  arguments.push_back(Matrices((*module)->entry_computation()->parameter_instruction(0)->shape(),
                               Kind::kGeneral, 8));
  CheckNative(text, std::move(arguments));
}

// geqrf then orgqr (ungqr) as JAX writes them, column-major: the
// reflectors, taus and Q are unique (LAPACK's sign convention), so they
// must match the evaluator's.
TEST(LinalgTest, LapackQrMatchesTheEvaluator) {
  for (const auto& [type, batch, m, n] :
       std::vector<std::tuple<std::string, int, int, int>>{{"f32", 1, 1, 1},
                                                           {"f32", 3, 5, 3},
                                                           {"f64", 2, 70, 40},
                                                           {"c64", 2, 37, 37},
                                                           {"c128", 1, 130, 60},
                                                           {"f32", 1, 150, 150},
                                                           {"f32", 2, 0, 0}}) {
    const int k = std::min(m, n);
    const std::string a = absl::StrFormat("%s[%d,%d,%d]{1,2,0}", type, batch, m, n);
    const std::string taus = absl::StrFormat("%s[%d,%d]", type, batch, k);
    const char* product = type == "c64" || type == "c128" ? "ungqr" : "orgqr";
    const std::string text = absl::StrFormat(
        R"(HloModule m
ENTRY e {
  a = %s parameter(0)
  qr = (%s, %s) custom-call(a), custom_call_target="lapack_%sgeqrf_ffi", output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={}
  r = %s get-tuple-element(qr), index=0
  t = %s get-tuple-element(qr), index=1
  q = %s custom-call(r, t), custom_call_target="lapack_%s%s_ffi", output_to_operand_aliasing={{}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={}
  ROOT out = (%s, %s, %s) tuple(r, t, q)
})",
        a, a, taus, LapackLetter(type), a, taus, a, LapackLetter(type), product, a, taus, a);
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status() << "\n" << text;
    std::vector<Literal> arguments;
    arguments.push_back(Matrices((*module)->entry_computation()->parameter_instruction(0)->shape(),
                                 Kind::kGeneral, 10));
    CheckNative(text, std::move(arguments));
  }
}

TEST(LinalgTest, HermitianEigenMatchesTheEvaluator) {
  // f32 and c64 to order 37 (the reconstruction's f32 rounding, about
  // n epsilon |A|, would approach the 1e-4 tolerance at larger orders),
  // f64 and c128 to 130; a batch of 3 split over threads.
  for (const auto& [type, n] : std::vector<std::pair<std::string, int64_t>>{{"f32", 1},
                                                                            {"f32", 6},
                                                                            {"f32", 37},
                                                                            {"c64", 5},
                                                                            {"c64", 37},
                                                                            {"f64", 130},
                                                                            {"c128", 17},
                                                                            {"c128", 130}}) {
    for (const char* uplo : {"76", "85"}) CheckSpectralModule(EigenModule(type, 3, n, uplo));
  }
}

TEST(LinalgTest, SvdMatchesTheEvaluator) {
  for (const auto& [type, m, n] :
       std::vector<std::tuple<std::string, int64_t, int64_t>>{{"f32", 1, 1},
                                                              {"f32", 6, 4},
                                                              {"f32", 4, 6},
                                                              {"f32", 37, 20},
                                                              {"c64", 20, 37},
                                                              {"c64", 5, 5},
                                                              {"f64", 130, 70},
                                                              {"c128", 70, 130},
                                                              {"f32", 0, 3}}) {
    for (char mode : {'A', 'S', 'N'}) CheckSpectralModule(SvdModule(type, 2, m, n, mode));
  }
}

// gehrd and sytrd/hetrd as JAX writes them: their reflectors are unique
// (LAPACK's larfg convention), so every result compares directly.
std::string HessenbergModule(const std::string& type, int64_t batch, int64_t n, int64_t low,
                             int64_t high) {
  const std::string a = absl::StrFormat("%s[%d,%d,%d]{1,2,0}", type, batch, n, n);
  return absl::StrFormat(R"(HloModule m
ENTRY e {
  a = %s parameter(0)
  ROOT r = (%s, %s[%d,%d], s32[%d]) custom-call(a), custom_call_target="lapack_%sgehrd_ffi", operand_layout_constraints={%s}, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={high = %d : i32, low = %d : i32}
})",
                         a, a, type, batch, std::max<int64_t>(n - 1, 0), batch, LapackLetter(type),
                         a, high, low);
}

std::string TridiagonalModule(const std::string& type, int64_t batch, int64_t n, bool lower) {
  const std::string a = absl::StrFormat("%s[%d,%d,%d]{1,2,0}", type, batch, n, n);
  const std::string real = RealTypeName(type);
  const int64_t off = std::max<int64_t>(n - 1, 0);
  return absl::StrFormat(R"(HloModule m
ENTRY e {
  a = %s parameter(0)
  ROOT r = (%s, %s[%d,%d], %s[%d,%d], %s[%d,%d], s32[%d]) custom-call(a), custom_call_target="lapack_%s%s_ffi", operand_layout_constraints={%s}, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={uplo = %d : ui8}
})",
                         a, a, real, batch, n, real, batch, off, type, batch, off, batch,
                         LapackLetter(type), real == type ? "sytrd" : "hetrd", a, lower ? 76 : 85);
}

TEST(LinalgTest, LapackCondensedFormsMatchTheEvaluator) {
  if (lapack::Load() == nullptr) GTEST_SKIP() << "no LAPACK: " << lapack::Describe();
  // f32 and c64 to order 37 (rounding against the 1e-4 tolerance), f64
  // and c128 past LAPACK's blocked crossovers (gehrd 128, sytrd 32).
  for (const auto& [type, batch, n] :
       std::vector<std::tuple<std::string, int, int>>{{"f32", 1, 1},
                                                      {"f32", 3, 2},
                                                      {"f32", 2, 37},
                                                      {"c64", 1, 20},
                                                      {"f64", 2, 70},
                                                      {"c128", 1, 140},
                                                      {"f64", 2, 0}}) {
    CheckSpectralModule(HessenbergModule(type, batch, n, n > 0 ? 1 : 1, n));
    for (bool lower : {true, false}) CheckSpectralModule(TridiagonalModule(type, batch, n, lower));
  }
  // ilo and ihi inside the matrix: reflectors for columns [ilo - 1, ihi - 2].
  CheckSpectralModule(HessenbergModule("f64", 1, 9, 3, 7));
}

// geqp3 as JAX writes it, with some columns fixed (jpvt nonzero): random
// columns' norms are distinct, so the pivots, reflectors and taus are
// unique and compare directly.
TEST(LinalgTest, LapackPivotedQrMatchesTheEvaluator) {
  if (lapack::Load() == nullptr) GTEST_SKIP() << "no LAPACK: " << lapack::Describe();
  for (const auto& [type, batch, m, n, fixed] :
       std::vector<std::tuple<std::string, int, int, int, int>>{{"f32", 1, 1, 1, 0},
                                                                {"f32", 2, 6, 4, 0},
                                                                {"f64", 2, 40, 25, 3},
                                                                {"c64", 1, 9, 14, 0},
                                                                {"c128", 2, 30, 30, 2},
                                                                {"f64", 1, 0, 3, 0}}) {
    const std::string a = absl::StrFormat("%s[%d,%d,%d]{1,2,0}", type, batch, m, n);
    const std::string jpvt = absl::StrFormat("s32[%d,%d]", batch, n);
    const std::string text =
        absl::StrFormat(R"(HloModule m
ENTRY e {
  a = %s parameter(0)
  jpvt = %s parameter(1)
  ROOT r = (%s, %s, %s[%d,%d]) custom-call(a, jpvt), custom_call_target="lapack_%sgeqp3_ffi", operand_layout_constraints={%s, %s}, output_to_operand_aliasing={{0}: (0, {}), {1}: (1, {})}, api_version=API_VERSION_TYPED_FFI
})",
                        a, jpvt, a, jpvt, type, batch, std::min(m, n), LapackLetter(type), a, jpvt);
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    std::vector<Literal> arguments;
    arguments.push_back(Matrices((*module)->entry_computation()->parameter_instruction(0)->shape(),
                                 Kind::kGeneral, 12));
    Literal pivots((*module)->entry_computation()->parameter_instruction(1)->shape());
    // Columns 1, 3, ... up to `fixed` of them, marked in every matrix.
    for (int b = 0; b < batch; ++b) {
      for (int j = 0; j < n; ++j) {
        pivots.SetFromDouble(b * n + j, j % 2 == 1 && j / 2 < fixed ? 1 : 0);
      }
    }
    arguments.push_back(std::move(pivots));
    CheckNative(text, std::move(arguments));
  }
}

// gtsv as JAX writes it: the CPU runs LAPACK's, whose overwritten
// diagonals, solution and info the evaluator repeats step for step.
std::string TridiagonalSolveModule(const std::string& type, int64_t batch, int64_t n,
                                   int64_t nrhs) {
  const std::string v = absl::StrFormat("%s[%d,%d]", type, batch, n);
  const std::string b = absl::StrFormat("%s[%d,%d,%d]{1,2,0}", type, batch, n, nrhs);
  return absl::StrFormat(R"(HloModule m
ENTRY e {
  dl = %s parameter(0)
  d = %s parameter(1)
  du = %s parameter(2)
  b = %s parameter(3)
  ROOT r = (%s, %s, %s, %s, s32[%d]) custom-call(dl, d, du, b), custom_call_target="lapack_%sgtsv_ffi", operand_layout_constraints={%s, %s, %s, %s}, output_to_operand_aliasing={{0}: (0, {}), {1}: (1, {}), {2}: (2, {}), {3}: (3, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={}
})",
                         v, v, v, b, v, v, v, b, batch, LapackLetter(type), v, v, v, b);
}

// Normal random dl, d, du and b for TridiagonalSolveModule's `text`.
std::vector<Literal> TridiagonalArguments(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  std::vector<Literal> arguments;
  if (!module.ok()) return arguments;
  const HloComputation* entry = (*module)->entry_computation();
  for (int k = 0; k < 4; ++k) {
    arguments.push_back(Matrices(entry->parameter_instruction(k)->shape(), Kind::kGeneral, k));
  }
  return arguments;
}

TEST(LinalgTest, LapackTridiagonalSolveMatchesTheEvaluator) {
  if (lapack::Load() == nullptr) GTEST_SKIP() << "no LAPACK: " << lapack::Describe();
  for (const auto& [type, batch, n, nrhs] :
       std::vector<std::tuple<std::string, int, int, int>>{{"f32", 1, 1, 1},
                                                           {"f32", 3, 2, 2},
                                                           {"f64", 2, 7, 3},
                                                           {"c64", 1, 33, 1},
                                                           {"c128", 2, 100, 5},
                                                           {"f64", 4, 9, 0},
                                                           {"f32", 2, 0, 3}}) {
    const std::string text = TridiagonalSolveModule(type, batch, n, nrhs);
    CheckNative(text, TridiagonalArguments(text));
  }
  // Column 3 zero below the diagonal and du[2] zero, so that no step can
  // fill d[3]: info 4, the arrays as the elimination left them.
  const std::string text = TridiagonalSolveModule("f64", 1, 8, 2);
  std::vector<Literal> arguments = TridiagonalArguments(text);
  ASSERT_EQ(arguments.size(), 4u);
  arguments[0].SetFromDouble(4, 0);  // dl[4], under d[3]
  arguments[1].SetFromDouble(3, 0);
  arguments[2].SetFromDouble(2, 0);  // du[2]
  arguments[0].SetFromDouble(3, 0);  // dl[3]: no swap of row 3 up at step 2
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Literal> evaluated = EvaluateModule(**module, arguments);
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_EQ(evaluated->tuple_element(4).data<int32_t>()[0], 4);
  CheckNative(text, std::move(arguments));
}

// The general eigenproblem: eigenvalue order and vector phases are free,
// so the module returns the sorted real parts, the right and left
// residuals |A v - w v|, |u^H A - w u^H| and the vectors' squared norms.
std::string GeneralEigenModule(const std::string& type, int64_t batch, int64_t n) {
  const std::string real = RealTypeName(type);
  const bool complex = real != type;
  const std::string c = complex ? type : (type == "f32" ? "c64" : "c128");
  const std::string square = absl::StrCat(batch, ",", n, ",", n);
  const std::string values = absl::StrCat(batch, ",", n);
  std::string text = absl::StrFormat(
      R"(HloModule m
less {
  x = %s[] parameter(0)
  y = %s[] parameter(1)
  ROOT lt = pred[] compare(x, y), direction=LT
}
add {
  x = %s[] parameter(0)
  y = %s[] parameter(1)
  ROOT s = %s[] add(x, y)
}
ENTRY e {
  a = %s[%s]{1,2,0} parameter(0)
)",
      real, real, real, real, real, type, square);
  if (complex) {
    text += absl::StrFormat(
        R"(  r = (%s[%s], %s[%s]{1,2,0}, %s[%s]{1,2,0}, s32[%d]) custom-call(a), custom_call_target="lapack_%sgeev_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={compute_left = 86 : ui8, compute_right = 86 : ui8}
  w = %s[%s] get-tuple-element(r), index=0
  vl = %s[%s]{1,2,0} get-tuple-element(r), index=1
  vr = %s[%s]{1,2,0} get-tuple-element(r), index=2
  info = s32[%d] get-tuple-element(r), index=3
  ac = %s[%s] copy(a)
  wr = %s[%s] real(w)
)",
        type, values, type, square, type, square, batch, LapackLetter(type), type, values, c,
        square, c, square, batch, c, square, real, values);
  } else {
    text += absl::StrFormat(
        R"(  r = (%s[%s], %s[%s], %s[%s]{1,2,0}, %s[%s]{1,2,0}, s32[%d]) custom-call(a), custom_call_target="lapack_%sgeev_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={compute_left = 86 : ui8, compute_right = 86 : ui8}
  wr = %s[%s] get-tuple-element(r), index=0
  wi = %s[%s] get-tuple-element(r), index=1
  vl = %s[%s]{1,2,0} get-tuple-element(r), index=2
  vr = %s[%s]{1,2,0} get-tuple-element(r), index=3
  info = s32[%d] get-tuple-element(r), index=4
  w = %s[%s] complex(wr, wi)
  ac = %s[%s] convert(a)
)",
        real, values, real, values, c, square, c, square, batch, LapackLetter(type), real, values,
        real, values, c, square, c, square, batch, c, values, c, square);
  }
  text += AdjointOp("ul", "vl", c, real, square);
  text += absl::StrFormat(
      R"(  sorted = %s[%s] sort(wr), dimensions={1}, to_apply=less
  wc = %s[%s] broadcast(w), dimensions={0,2}
  wrow = %s[%s] broadcast(w), dimensions={0,1}
  av = %s[%s] dot(ac, vr), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  vw = %s[%s] multiply(vr, wc)
  right = %s[%s] subtract(av, vw)
  right_abs = %s[%s] abs(right)
  ua = %s[%s] dot(ul, ac), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  wu = %s[%s] multiply(wrow, ul)
  left = %s[%s] subtract(ua, wu)
  left_abs = %s[%s] abs(left)
  vabs = %s[%s] abs(vr)
  vsq = %s[%s] multiply(vabs, vabs)
  zero = %s[] constant(0)
  norms = %s[%s] reduce(vsq, zero), dimensions={1}, to_apply=add
  ROOT t = (%s[%s], %s[%s], %s[%s], %s[%s], s32[%d]) tuple(sorted, right_abs, left_abs, norms, info)
})",
      real, values, c, square, c, square, c, square, c, square, c, square, real, square, c, square,
      c, square, c, square, real, square, real, square, real, square, real, real, values, real,
      values, real, square, real, square, real, values, batch);
  return text;
}

TEST(LinalgTest, GeneralEigenMatchesTheEvaluator) {
  for (const auto& [type, n] : std::vector<std::pair<std::string, int64_t>>{
           {"f32", 1}, {"f32", 6}, {"f32", 40}, {"c64", 30}, {"f64", 100}, {"c128", 17}}) {
    CheckSpectralModule(GeneralEigenModule(type, 2, n));
  }
}

// The eigensolver and SVD built for AVX-512 (which the thunk runs here)
// and for the baseline ISA (which it runs on hosts without AVX-512) give
// the same values.
TEST(LinalgTest, BaselineAndAvx512SpectralBuildsAgree) {
  if (!eigen_dot_internal::KernelsSupported()) GTEST_SKIP() << "the host has no AVX-512";
  std::mt19937_64 random(9);
  std::normal_distribution<float> normal;
  for (int64_t n : {7, 40}) {
    std::vector<float> a(n * n);
    for (float& x : a) x = normal(random);
    std::vector<float> baseline = a, avx512 = a, w_baseline(n), w_avx512(n);
    ASSERT_TRUE(
        factorizations_baseline::HermitianEigen(n, baseline.data(), w_baseline.data(), true));
    ASSERT_TRUE(factorizations_avx512::HermitianEigen(n, avx512.data(), w_avx512.data(), true));
    for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(w_baseline[i], w_avx512[i], 1e-4 * n) << i;
    const int64_t m = n + 5;
    std::vector<std::complex<double>> b(m * n);
    for (auto& x : b) x = {normal(random), normal(random)};
    std::vector<double> s_baseline(n), s_avx512(n);
    std::vector<std::complex<double>> u(m * m), vt(n * n);
    ASSERT_TRUE(factorizations_baseline::Svd(m, n, b.data(), s_baseline.data(), true, m, u.data(),
                                             n, vt.data()));
    ASSERT_TRUE(factorizations_avx512::Svd(m, n, b.data(), s_avx512.data(), true, m, u.data(), n,
                                           vt.data()));
    for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(s_baseline[i], s_avx512[i], 1e-10 * n) << i;
  }
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
