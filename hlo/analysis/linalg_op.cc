// Describes the linear-algebra ops; see linalg_op.h.
#include "hlo/analysis/linalg_op.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_opcode.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace {

constexpr absl::string_view kLapackPrefix = "lapack_";
constexpr absl::string_view kFfiSuffix = "_ffi";

absl::Status Invalid(const HloInstruction& hlo, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("%", hlo.name(), " (", LinalgName(hlo), "): ", what));
}

// The routine of a LAPACK target ("potrf" of "lapack_spotrf_ffi") and its
// element type, or false.
bool ParseLapackTarget(absl::string_view target, PrimitiveType* type, absl::string_view* routine) {
  if (!absl::ConsumePrefix(&target, kLapackPrefix) || !absl::ConsumeSuffix(&target, kFfiSuffix) ||
      target.size() < 2) {
    return false;
  }
  switch (target[0]) {
    case 's':
      *type = F32;
      break;
    case 'd':
      *type = F64;
      break;
    case 'c':
      *type = C64;
      break;
    case 'z':
      *type = C128;
      break;
    default:
      return false;
  }
  *routine = target.substr(1);
  const bool complex = IsComplexType(*type);
  return *routine == "potrf" || *routine == "getrf" || *routine == "trsm" || *routine == "geqrf" ||
         *routine == (complex ? "ungqr" : "orgqr") || *routine == (complex ? "heevd" : "syevd") ||
         *routine == "gesdd" || *routine == "gesvd" || *routine == "geev" || *routine == "gtsv" ||
         *routine == "gehrd" || *routine == (complex ? "hetrd" : "sytrd") || *routine == "gees" ||
         *routine == "geqp3";
}

// The integer entries of an MLIR attribute dictionary such as
// `{diag = 85 : ui8, side = 76 : ui8}`.
absl::StatusOr<absl::flat_hash_map<std::string, int64_t>> ParseAttributeDictionary(
    absl::string_view text) {
  absl::flat_hash_map<std::string, int64_t> entries;
  text = absl::StripAsciiWhitespace(text);
  if (text.empty()) return entries;
  if (!absl::ConsumePrefix(&text, "{") || !absl::ConsumeSuffix(&text, "}")) {
    return absl::InvalidArgumentError(
        absl::StrCat("backend_config '", text, "' is not an attribute dictionary {name = value}"));
  }
  for (absl::string_view entry : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    std::vector<absl::string_view> parts = absl::StrSplit(entry, absl::MaxSplits('=', 1));
    if (parts.size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat("backend_config entry '", entry, "'"));
    }
    absl::string_view value = absl::StripAsciiWhitespace(parts[1]);
    value = absl::StripAsciiWhitespace(value.substr(0, value.find(':')));  // drop ": ui8"
    int64_t number = 0;
    if (!absl::SimpleAtoi(value, &number)) {
      return absl::InvalidArgumentError(
          absl::StrCat("backend_config entry '", entry, "' has no integer value"));
    }
    entries[std::string(absl::StripAsciiWhitespace(parts[0]))] = number;
  }
  return entries;
}

// LAPACK character attribute `name`, one of `allowed`.
absl::StatusOr<char> CharAttribute(const HloInstruction& hlo,
                                   const absl::flat_hash_map<std::string, int64_t>& attributes,
                                   absl::string_view name, absl::string_view allowed) {
  auto it = attributes.find(name);
  if (it == attributes.end()) {
    return Invalid(hlo, absl::StrCat("backend_config has no '", name, "'"));
  }
  const int64_t code = it->second;
  if (code < 0 || code > 127 || !absl::StrContains(allowed, static_cast<char>(code))) {
    return Invalid(hlo, absl::StrCat("backend_config '", name, "' is ", code, ", not one of '",
                                     allowed, "' (as character codes)"));
  }
  return static_cast<char>(code);
}

std::vector<int64_t> Leading(const Shape& shape) {
  const std::vector<int64_t>& dims = shape.dimensions();
  return std::vector<int64_t>(dims.begin(), dims.end() - 2);
}

// Checks that `shape` is a `type` array of rank >= 2 (a batch of matrices).
absl::Status ExpectMatrices(const HloInstruction& hlo, const Shape& shape, PrimitiveType type,
                            absl::string_view what) {
  if (!shape.IsArray() || shape.rank() < 2 || shape.element_type() != type) {
    return Invalid(hlo, absl::StrCat(what, " is ", shape.ToString(), ", not a ",
                                     PrimitiveTypeName(type), " array of rank 2 or more"));
  }
  return absl::OkStatus();
}

absl::Status ExpectS32(const HloInstruction& hlo, const Shape& shape,
                       const std::vector<int64_t>& dims, absl::string_view what) {
  if (!shape.IsArray() || shape.element_type() != S32 || shape.dimensions() != dims) {
    return Invalid(hlo, absl::StrCat(what, " is ", shape.ToString(), ", not s32[",
                                     absl::StrJoin(dims, ","), "]"));
  }
  return absl::OkStatus();
}

// The result of a LAPACK call: `count` elements, the first shaped as
// `matrices`.
absl::Status ExpectTupleResult(const HloInstruction& hlo, int64_t count, const Shape& matrices) {
  const Shape& result = hlo.shape();
  if (!result.IsTuple() || result.tuple_size() != count) {
    return Invalid(hlo,
                   absl::StrCat("the result is ", result.ToString(), ", not a tuple of ", count));
  }
  const Shape& factor = result.tuple_shapes(0);
  if (!factor.IsArray() || factor.element_type() != matrices.element_type() ||
      factor.dimensions() != matrices.dimensions()) {
    return Invalid(hlo, absl::StrCat("result 0 is ", factor.ToString(), ", not the operand's ",
                                     matrices.ToString()));
  }
  return absl::OkStatus();
}

// Checks that `shape` (result `index`, `what`) is `type`[dims].
absl::Status ExpectArrayOf(const HloInstruction& hlo, const Shape& shape, PrimitiveType type,
                           const std::vector<int64_t>& dims, int index, absl::string_view what) {
  if (!shape.IsArray() || shape.element_type() != type || shape.dimensions() != dims) {
    return Invalid(hlo,
                   absl::StrCat("result ", index, " (", what, ") is ", shape.ToString(), ", not ",
                                PrimitiveTypeName(type), "[", absl::StrJoin(dims, ","), "]"));
  }
  return absl::OkStatus();
}

std::vector<int64_t> Append(std::vector<int64_t> dims, std::initializer_list<int64_t> more) {
  dims.insert(dims.end(), more.begin(), more.end());
  return dims;
}

// The type of eigenvalues and singular values: a complex type's component.
PrimitiveType RealTypeOf(PrimitiveType type) {
  return IsComplexType(type) ? ComplexComponentType(type) : type;
}

// syevd, heevd: (vectors, eigenvalues, info).
absl::Status CheckHermitianEigen(const HloInstruction& hlo, const Shape& a, LinalgOp* op) {
  if (op->rows != op->cols) return Invalid(hlo, "the matrices are not square");
  TS_RETURN_IF_ERROR(ExpectTupleResult(hlo, 3, a));
  const std::vector<int64_t> batch = Leading(a);
  TS_RETURN_IF_ERROR(ExpectArrayOf(hlo, hlo.shape().tuple_shapes(1), RealTypeOf(op->type),
                                   Append(batch, {op->rows}), 1, "eigenvalues"));
  return ExpectS32(hlo, hlo.shape().tuple_shapes(2), batch, "result 2 (info)");
}

// geev: (wr, wi, vl, vr, info) for real types, (w, vl, vr, info) for
// complex ones; the vectors complex.
absl::Status CheckGeneralEigen(const HloInstruction& hlo, const Shape& a, LinalgOp* op) {
  if (op->rows != op->cols) return Invalid(hlo, "the matrices are not square");
  const bool complex = IsComplexType(op->type);
  const int64_t count = complex ? 4 : 5;
  const Shape& result = hlo.shape();
  if (!result.IsTuple() || result.tuple_size() != count) {
    return Invalid(hlo,
                   absl::StrCat("the result is ", result.ToString(), ", not a tuple of ", count));
  }
  const std::vector<int64_t> batch = Leading(a);
  const PrimitiveType vector_type = complex ? op->type : (op->type == F32 ? C64 : C128);
  int index = 0;
  TS_RETURN_IF_ERROR(ExpectArrayOf(hlo, result.tuple_shapes(index), op->type,
                                   Append(batch, {op->rows}), index, complex ? "w" : "wr"));
  ++index;
  if (!complex) {
    TS_RETURN_IF_ERROR(ExpectArrayOf(hlo, result.tuple_shapes(index), op->type,
                                     Append(batch, {op->rows}), index, "wi"));
    ++index;
  }
  for (const char* what : {"vl", "vr"}) {
    TS_RETURN_IF_ERROR(ExpectArrayOf(hlo, result.tuple_shapes(index), vector_type,
                                     Append(batch, {op->rows, op->rows}), index, what));
    ++index;
  }
  return ExpectS32(hlo, result.tuple_shapes(index), batch,
                   absl::StrCat("result ", index, " (info)"));
}

// gesdd, gesvd: (a, s, u, vt, info), u and vt full or with k columns
// (rows); mode 'N' may have either.
absl::Status CheckSvd(const HloInstruction& hlo, const Shape& a, char mode, LinalgOp* op) {
  TS_RETURN_IF_ERROR(ExpectTupleResult(hlo, 5, a));
  const std::vector<int64_t> batch = Leading(a);
  const int64_t m = op->rows, n = op->cols, k = std::min(m, n);
  TS_RETURN_IF_ERROR(ExpectArrayOf(hlo, hlo.shape().tuple_shapes(1), RealTypeOf(op->type),
                                   Append(batch, {k}), 1, "singular values"));
  op->vectors = mode != 'N';
  op->full_matrices = mode == 'A';
  if (mode == 'N') {
    const Shape& u = hlo.shape().tuple_shapes(2);
    op->full_matrices = u.IsArray() && u.dimensions() == Append(batch, {m, m});
  }
  const int64_t u_cols = op->full_matrices ? m : k, vt_rows = op->full_matrices ? n : k;
  TS_RETURN_IF_ERROR(ExpectArrayOf(hlo, hlo.shape().tuple_shapes(2), op->type,
                                   Append(batch, {m, u_cols}), 2, "u"));
  TS_RETURN_IF_ERROR(ExpectArrayOf(hlo, hlo.shape().tuple_shapes(3), op->type,
                                   Append(batch, {vt_rows, n}), 3, "vt"));
  return ExpectS32(hlo, hlo.shape().tuple_shapes(4), batch, "result 4 (info)");
}

void SetBatch(const Shape& shape, LinalgOp* op) {
  op->batch = 1;
  for (int64_t d : Leading(shape)) op->batch *= d;
  op->rows = shape.dimensions()[shape.rank() - 2];
  op->cols = shape.dimensions()[shape.rank() - 1];
}

// A triangular solve's operands: A square and matching B's side, the same
// leading dimensions, the result shaped as B.
absl::Status CheckTriangularSolve(const HloInstruction& hlo, const Shape& result, LinalgOp* op) {
  if (hlo.operand_count() != 2) return Invalid(hlo, "needs 2 operands (a, b)");
  const Shape& a = hlo.operand(0)->shape();
  const Shape& b = hlo.operand(1)->shape();
  TS_RETURN_IF_ERROR(ExpectMatrices(hlo, a, op->type, "operand a"));
  TS_RETURN_IF_ERROR(ExpectMatrices(hlo, b, op->type, "operand b"));
  SetBatch(b, op);
  const int64_t side = op->left_side ? op->rows : op->cols;
  if (Leading(a) != Leading(b) || a.dimensions()[a.rank() - 1] != side ||
      a.dimensions()[a.rank() - 2] != side) {
    return Invalid(hlo, absl::StrCat("a ", a.ToString(), " does not fit b ", b.ToString(),
                                     op->left_side ? " on the left" : " on the right"));
  }
  if (!result.IsArray() || result.element_type() != op->type ||
      result.dimensions() != b.dimensions()) {
    return Invalid(hlo, absl::StrCat("the result is ", result.ToString(), ", not b's shape"));
  }
  return absl::OkStatus();
}

// gtsv: (dl, d, du) vectors [batch, n] and b [batch, n, nrhs]; the result
// (dl, d, du, x, info) shaped as they are.
absl::Status CheckTridiagonalSolve(const HloInstruction& hlo, LinalgOp* op) {
  if (hlo.operand_count() != 4) return Invalid(hlo, "needs 4 operands (dl, d, du, b)");
  const Shape& b = hlo.operand(3)->shape();
  TS_RETURN_IF_ERROR(ExpectMatrices(hlo, b, op->type, "operand b"));
  SetBatch(b, op);
  const std::vector<int64_t> batch = Leading(b);
  const std::vector<int64_t> diagonal = Append(batch, {op->rows});
  const Shape& result = hlo.shape();
  if (!result.IsTuple() || result.tuple_size() != 5) {
    return Invalid(hlo, absl::StrCat("the result is ", result.ToString(), ", not a tuple of 5"));
  }
  const char* names[] = {"dl", "d", "du"};
  for (int i = 0; i < 3; ++i) {
    const Shape& operand = hlo.operand(i)->shape();
    if (!operand.IsArray() || operand.element_type() != op->type ||
        operand.dimensions() != diagonal) {
      return Invalid(hlo, absl::StrCat("operand ", names[i], " is ", operand.ToString(), ", not ",
                                       PrimitiveTypeName(op->type), "[",
                                       absl::StrJoin(diagonal, ","), "] to fit b ", b.ToString()));
    }
    TS_RETURN_IF_ERROR(ExpectArrayOf(hlo, result.tuple_shapes(i), op->type, diagonal, i, names[i]));
  }
  TS_RETURN_IF_ERROR(ExpectArrayOf(hlo, result.tuple_shapes(3), op->type, b.dimensions(), 3, "x"));
  return ExpectS32(hlo, result.tuple_shapes(4), batch, "result 4 (info)");
}

absl::StatusOr<LinalgOp> DescribeLapackCall(const HloInstruction& hlo, PrimitiveType type,
                                            absl::string_view routine) {
  LinalgOp op;
  op.lapack = true;
  op.type = type;
  TS_ASSIGN_OR_RETURN(auto attributes, ParseAttributeDictionary(hlo.attrs().backend_config));
  if (routine == "trsm") {
    op.kind = LinalgKind::kTriangularSolve;
    TS_ASSIGN_OR_RETURN(char side, CharAttribute(hlo, attributes, "side", "LR"));
    TS_ASSIGN_OR_RETURN(char uplo, CharAttribute(hlo, attributes, "uplo", "LU"));
    TS_ASSIGN_OR_RETURN(char trans, CharAttribute(hlo, attributes, "trans_x", "NTC"));
    TS_ASSIGN_OR_RETURN(char diag, CharAttribute(hlo, attributes, "diag", "NU"));
    op.left_side = side == 'L';
    op.lower = uplo == 'L';
    op.transpose = trans == 'N'   ? LinalgTranspose::kNone
                   : trans == 'T' ? LinalgTranspose::kTranspose
                                  : LinalgTranspose::kAdjoint;
    op.unit_diagonal = diag == 'U';
    TS_RETURN_IF_ERROR(CheckTriangularSolve(hlo, hlo.shape(), &op));
    return op;
  }
  if (routine == "gtsv") {
    op.kind = LinalgKind::kTridiagonalSolve;
    TS_RETURN_IF_ERROR(CheckTridiagonalSolve(hlo, &op));
    return op;
  }
  if (routine == "geqp3") {
    op.kind = LinalgKind::kPivotedQr;
    if (hlo.operand_count() != 2) return Invalid(hlo, "needs 2 operands (a, jpvt)");
    const Shape& a = hlo.operand(0)->shape();
    TS_RETURN_IF_ERROR(ExpectMatrices(hlo, a, type, "operand a"));
    SetBatch(a, &op);
    const std::vector<int64_t> batch = Leading(a);
    const std::vector<int64_t> columns = Append(batch, {op.cols});
    TS_RETURN_IF_ERROR(ExpectS32(hlo, hlo.operand(1)->shape(), columns, "operand jpvt"));
    TS_RETURN_IF_ERROR(ExpectTupleResult(hlo, 3, a));
    TS_RETURN_IF_ERROR(ExpectS32(hlo, hlo.shape().tuple_shapes(1), columns, "result 1 (jpvt)"));
    TS_RETURN_IF_ERROR(ExpectArrayOf(hlo, hlo.shape().tuple_shapes(2), type,
                                     Append(batch, {std::min(op.rows, op.cols)}), 2, "taus"));
    return op;
  }
  if (routine == "orgqr" || routine == "ungqr") {
    op.kind = LinalgKind::kHouseholderProduct;
    if (hlo.operand_count() != 2) return Invalid(hlo, "needs 2 operands (a, taus)");
    const Shape& a = hlo.operand(0)->shape();
    const Shape& taus = hlo.operand(1)->shape();
    TS_RETURN_IF_ERROR(ExpectMatrices(hlo, a, type, "operand a"));
    SetBatch(a, &op);
    std::vector<int64_t> batch = Leading(a);
    if (!taus.IsArray() || taus.element_type() != type || taus.rank() < 1 ||
        std::vector<int64_t>(taus.dimensions().begin(), taus.dimensions().end() - 1) != batch) {
      return Invalid(hlo, absl::StrCat("taus ", taus.ToString(), " do not fit a ", a.ToString()));
    }
    op.reflectors = taus.dimensions().back();
    if (op.reflectors > op.cols || op.cols > op.rows) {
      return Invalid(hlo, absl::StrCat("needs reflectors <= columns <= rows, not ", op.reflectors,
                                       ", ", op.cols, ", ", op.rows));
    }
    if (!hlo.shape().IsArray() || hlo.shape().element_type() != type ||
        hlo.shape().dimensions() != a.dimensions()) {
      return Invalid(hlo,
                     absl::StrCat("the result is ", hlo.shape().ToString(), ", not a's shape"));
    }
    return op;
  }
  if (hlo.operand_count() != 1) return Invalid(hlo, "needs 1 operand");
  const Shape& a = hlo.operand(0)->shape();
  TS_RETURN_IF_ERROR(ExpectMatrices(hlo, a, type, "the operand"));
  SetBatch(a, &op);
  std::vector<int64_t> batch = Leading(a);
  if (routine == "geqrf") {
    op.kind = LinalgKind::kQr;
    TS_RETURN_IF_ERROR(ExpectTupleResult(hlo, 2, a));
    std::vector<int64_t> taus = batch;
    taus.push_back(std::min(op.rows, op.cols));
    const Shape& result = hlo.shape().tuple_shapes(1);
    if (!result.IsArray() || result.element_type() != type || result.dimensions() != taus) {
      return Invalid(hlo,
                     absl::StrCat("result 1 (taus) is ", result.ToString(), ", not ",
                                  PrimitiveTypeName(type), "[", absl::StrJoin(taus, ","), "]"));
    }
    return op;
  }
  if (routine == "syevd" || routine == "heevd") {
    op.kind = LinalgKind::kHermitianEigen;
    TS_ASSIGN_OR_RETURN(char mode, CharAttribute(hlo, attributes, "mode", "VN"));
    TS_ASSIGN_OR_RETURN(char uplo, CharAttribute(hlo, attributes, "uplo", "LU"));
    op.vectors = mode == 'V';
    op.lower = uplo == 'L';
    TS_RETURN_IF_ERROR(CheckHermitianEigen(hlo, a, &op));
    return op;
  }
  if (routine == "geev") {
    op.kind = LinalgKind::kEigen;
    TS_ASSIGN_OR_RETURN(char left, CharAttribute(hlo, attributes, "compute_left", "VN"));
    TS_ASSIGN_OR_RETURN(char right, CharAttribute(hlo, attributes, "compute_right", "VN"));
    op.left_vectors = left == 'V';
    op.vectors = right == 'V';
    TS_RETURN_IF_ERROR(CheckGeneralEigen(hlo, a, &op));
    return op;
  }
  if (routine == "gees") {
    op.kind = LinalgKind::kSchur;
    TS_ASSIGN_OR_RETURN(char mode, CharAttribute(hlo, attributes, "mode", "VN"));
    TS_ASSIGN_OR_RETURN(char sort, CharAttribute(hlo, attributes, "sort", "NS"));
    if (sort != 'N') {
      return Invalid(hlo, "sorting the Schur form ('S') needs a select function; not supported");
    }
    op.vectors = mode == 'V';
    if (op.rows != op.cols) return Invalid(hlo, "the matrices are not square");
    // Complex: (t, z, w, sdim, info); real: (t, z, wr, wi, sdim, info).
    const bool complex = IsComplexType(type);
    const int values = complex ? 1 : 2;
    TS_RETURN_IF_ERROR(ExpectTupleResult(hlo, 4 + values, a));
    TS_RETURN_IF_ERROR(ExpectArrayOf(hlo, hlo.shape().tuple_shapes(1), type,
                                     Append(batch, {op.rows, op.rows}), 1, "Schur vectors"));
    for (int i = 0; i < values; ++i) {
      TS_RETURN_IF_ERROR(ExpectArrayOf(hlo, hlo.shape().tuple_shapes(2 + i), type,
                                       Append(batch, {op.rows}), 2 + i,
                                       complex  ? "eigenvalues"
                                       : i == 0 ? "wr"
                                                : "wi"));
    }
    TS_RETURN_IF_ERROR(ExpectS32(hlo, hlo.shape().tuple_shapes(2 + values), batch,
                                 absl::StrCat("result ", 2 + values, " (sdim)")));
    TS_RETURN_IF_ERROR(ExpectS32(hlo, hlo.shape().tuple_shapes(3 + values), batch,
                                 absl::StrCat("result ", 3 + values, " (info)")));
    return op;
  }
  if (routine == "gehrd") {
    op.kind = LinalgKind::kHessenberg;
    if (op.rows != op.cols) return Invalid(hlo, "the matrices are not square");
    auto integer = [&](const char* name) -> absl::StatusOr<int64_t> {
      auto it = attributes.find(name);
      if (it == attributes.end()) {
        return Invalid(hlo, absl::StrCat("backend_config has no '", name, "'"));
      }
      return it->second;
    };
    TS_ASSIGN_OR_RETURN(op.low, integer("low"));
    TS_ASSIGN_OR_RETURN(op.high, integer("high"));
    const int64_t n = op.rows;
    if (n > 0 ? !(1 <= op.low && op.low <= op.high && op.high <= n)
              : !(op.low == 1 && op.high == 0)) {
      return Invalid(
          hlo, absl::StrCat("low ", op.low, " and high ", op.high, " do not satisfy ",
                            n > 0 ? "1 <= low <= high <= n" : "low 1, high 0", " for n = ", n));
    }
    TS_RETURN_IF_ERROR(ExpectTupleResult(hlo, 3, a));
    TS_RETURN_IF_ERROR(ExpectArrayOf(hlo, hlo.shape().tuple_shapes(1), type,
                                     Append(batch, {std::max<int64_t>(n - 1, 0)}), 1, "taus"));
    TS_RETURN_IF_ERROR(ExpectS32(hlo, hlo.shape().tuple_shapes(2), batch, "result 2 (info)"));
    return op;
  }
  if (routine == "sytrd" || routine == "hetrd") {
    op.kind = LinalgKind::kTridiagonal;
    TS_ASSIGN_OR_RETURN(char uplo, CharAttribute(hlo, attributes, "uplo", "LU"));
    op.lower = uplo == 'L';
    if (op.rows != op.cols) return Invalid(hlo, "the matrices are not square");
    const int64_t n = op.rows, off = std::max<int64_t>(n - 1, 0);
    TS_RETURN_IF_ERROR(ExpectTupleResult(hlo, 5, a));
    const PrimitiveType real = RealTypeOf(type);
    TS_RETURN_IF_ERROR(
        ExpectArrayOf(hlo, hlo.shape().tuple_shapes(1), real, Append(batch, {n}), 1, "d"));
    TS_RETURN_IF_ERROR(
        ExpectArrayOf(hlo, hlo.shape().tuple_shapes(2), real, Append(batch, {off}), 2, "e"));
    TS_RETURN_IF_ERROR(
        ExpectArrayOf(hlo, hlo.shape().tuple_shapes(3), type, Append(batch, {off}), 3, "taus"));
    TS_RETURN_IF_ERROR(ExpectS32(hlo, hlo.shape().tuple_shapes(4), batch, "result 4 (info)"));
    return op;
  }
  if (routine == "gesdd" || routine == "gesvd") {
    op.kind = LinalgKind::kSvd;
    TS_ASSIGN_OR_RETURN(char mode, CharAttribute(hlo, attributes, "mode", "ASN"));
    TS_RETURN_IF_ERROR(CheckSvd(hlo, a, mode, &op));
    return op;
  }
  if (routine == "potrf") {
    op.kind = LinalgKind::kCholesky;
    TS_ASSIGN_OR_RETURN(char uplo, CharAttribute(hlo, attributes, "uplo", "LU"));
    op.lower = uplo == 'L';
    if (op.rows != op.cols) return Invalid(hlo, "the matrices are not square");
    TS_RETURN_IF_ERROR(ExpectTupleResult(hlo, 2, a));
    TS_RETURN_IF_ERROR(ExpectS32(hlo, hlo.shape().tuple_shapes(1), batch, "result 1 (info)"));
    return op;
  }
  op.kind = LinalgKind::kLu;
  TS_RETURN_IF_ERROR(ExpectTupleResult(hlo, 3, a));
  std::vector<int64_t> pivots = batch;
  pivots.push_back(std::min(op.rows, op.cols));
  TS_RETURN_IF_ERROR(ExpectS32(hlo, hlo.shape().tuple_shapes(1), pivots, "result 1 (pivots)"));
  TS_RETURN_IF_ERROR(ExpectS32(hlo, hlo.shape().tuple_shapes(2), batch, "result 2 (info)"));
  return op;
}

bool IsLinalgType(PrimitiveType type) {
  return type == F32 || type == F64 || type == C64 || type == C128;
}

}  // namespace

std::string LinalgName(const HloInstruction& hlo) {
  if (hlo.opcode() == HloOpcode::kCustomCall) return hlo.attrs().custom_call_target;
  return std::string(HloOpcodeString(hlo.opcode()));
}

bool IsLinalgOp(const HloInstruction& hlo) {
  if (hlo.opcode() == HloOpcode::kCholesky || hlo.opcode() == HloOpcode::kTriangularSolve) {
    return true;
  }
  PrimitiveType type;
  absl::string_view routine;
  return hlo.opcode() == HloOpcode::kCustomCall &&
         ParseLapackTarget(hlo.attrs().custom_call_target, &type, &routine);
}

absl::StatusOr<LinalgOp> DescribeLinalgOp(const HloInstruction& hlo) {
  if (hlo.opcode() == HloOpcode::kCustomCall) {
    PrimitiveType type;
    absl::string_view routine;
    if (!ParseLapackTarget(hlo.attrs().custom_call_target, &type, &routine)) {
      return Invalid(hlo,
                     "not a LAPACK call Tessera knows (potrf, getrf, trsm, geqrf, orgqr, ungqr, "
                     "syevd, heevd, gesdd, gesvd, geev, gehrd, sytrd, hetrd, gtsv, gees, geqp3)");
    }
    return DescribeLapackCall(hlo, type, routine);
  }
  if (hlo.operand_count() < 1 || !hlo.operand(0)->shape().IsArray()) {
    return Invalid(hlo, "needs array operands");
  }
  LinalgOp op;
  op.type = hlo.operand(0)->shape().element_type();
  if (!IsLinalgType(op.type)) {
    return Invalid(hlo, absl::StrCat("element type ", PrimitiveTypeName(op.type),
                                     " (f32, f64, c64 and c128 are supported)"));
  }
  if (hlo.opcode() == HloOpcode::kCholesky) {
    op.kind = LinalgKind::kCholesky;
    if (!hlo.attrs().cholesky_options.has_value()) return Invalid(hlo, "has no options");
    op.lower = hlo.attrs().cholesky_options->lower;
    if (hlo.operand_count() != 1) return Invalid(hlo, "needs 1 operand");
    const Shape& a = hlo.operand(0)->shape();
    TS_RETURN_IF_ERROR(ExpectMatrices(hlo, a, op.type, "the operand"));
    SetBatch(a, &op);
    if (op.rows != op.cols) return Invalid(hlo, "the matrices are not square");
    if (!hlo.shape().IsArray() || hlo.shape().element_type() != op.type ||
        hlo.shape().dimensions() != a.dimensions()) {
      return Invalid(
          hlo, absl::StrCat("the result is ", hlo.shape().ToString(), ", not the operand's shape"));
    }
    return op;
  }
  if (hlo.opcode() != HloOpcode::kTriangularSolve) return Invalid(hlo, "not a linalg op");
  op.kind = LinalgKind::kTriangularSolve;
  const std::optional<TriangularSolveOptions>& options = hlo.attrs().triangular_solve_options;
  if (!options.has_value() || options->transpose_a == TriangularSolveOptions::Transpose::kInvalid) {
    return Invalid(hlo, "has no transpose_a");
  }
  op.left_side = options->left_side;
  op.lower = options->lower;
  op.unit_diagonal = options->unit_diagonal;
  op.transpose = options->transpose_a == TriangularSolveOptions::Transpose::kNoTranspose
                     ? LinalgTranspose::kNone
                 : options->transpose_a == TriangularSolveOptions::Transpose::kTranspose
                     ? LinalgTranspose::kTranspose
                     : LinalgTranspose::kAdjoint;
  TS_RETURN_IF_ERROR(CheckTriangularSolve(hlo, hlo.shape(), &op));
  return op;
}

}  // namespace tessera
