// Reading and writing NumPy `.npy` files as Literals, so arguments and
// results can be exchanged with numpy (`np.save` / `np.load`) without Python.
//
// Reads format versions 1.0, 2.0 and 3.0; dtypes bool, int8..int64,
// uint8..uint64, float16/32/64 and complex64/128 in any byte order; C or
// Fortran order (Fortran data is transposed into the literal's row-major
// order); 0-d arrays.  Writes version 1.0, little-endian, C order, with the
// header padded exactly as numpy pads it.  numpy has no bfloat16 or float8
// types, so BF16 and F8* literals are written as float32 (exactly) and read
// back with ReadNpyFileAs;
// ml_dtypes' bfloat16 arrays (what JAX's np.save writes: raw two-byte
// values, dtype 'V2') are read as BF16.
//
// Every malformed input is an InvalidArgumentError that names the file (or
// "npy data" for ParseNpy) and what is wrong with it.
#ifndef TESSERA_HLO_IR_NPY_H_
#define TESSERA_HLO_IR_NPY_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/ir/literal.h"

namespace tessera {

// Reads a `.npy` file.  NotFoundError when it cannot be opened.
absl::StatusOr<Literal> ReadNpyFile(const std::string& path);

// Reads a `.npy` file into a literal of element type `type`.  The file's
// dtype must be `type`, except that a BF16 or F8* target accepts a float
// file (f16/f32/f64) whose every value is exactly one of the target's;
// anything else is an error naming both dtypes.  (ml_dtypes' float8 arrays,
// dtype 'V1', do not say which float8 they hold and are refused.)
absl::StatusOr<Literal> ReadNpyFileAs(const std::string& path, PrimitiveType type);

// Parses the bytes of a `.npy` file.
absl::StatusOr<Literal> ParseNpy(std::string_view bytes);

// The bytes of `literal` as a `.npy` file.  The literal must be an array
// (checked); WriteNpyFile returns an error instead.
std::string SerializeNpy(const Literal& literal);

// Writes `literal` (an array) to `path`.
absl::Status WriteNpyFile(const Literal& literal, const std::string& path);

// The numpy dtype string ("<f4", "|b1", ...) that SerializeNpy writes for
// `type`; BF16 writes "<f4".  Empty for non-array types.
std::string NpyDescr(PrimitiveType type);

}  // namespace tessera

#endif  // TESSERA_HLO_IR_NPY_H_
