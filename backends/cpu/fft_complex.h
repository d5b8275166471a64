// Complex products spelled out for the FFT loops.  std::complex's operator*
// follows C99 Annex G: it checks its result for NaN and then calls libgcc's
// __mulsc3 to recover infinities, which keeps the loops from vectorizing
// (the packed real transforms of line_fft.cc ran several times slower than
// their FFTs for it).  The FFTs' operands are finite twiddles and data, and
// an infinity in the data spoils a spectrum either way.
#ifndef TESSERA_BACKENDS_CPU_FFT_COMPLEX_H_
#define TESSERA_BACKENDS_CPU_FFT_COMPLEX_H_

#include <complex>

namespace tessera {
namespace cpu {
namespace fft_complex {

// a * b.
template <typename R>
inline std::complex<R> Multiply(std::complex<R> a, std::complex<R> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// a * conj(b).
template <typename R>
inline std::complex<R> MultiplyByConj(std::complex<R> a, std::complex<R> b) {
  return {a.real() * b.real() + a.imag() * b.imag(), a.imag() * b.real() - a.real() * b.imag()};
}

// a / 2.
template <typename R>
inline std::complex<R> Half(std::complex<R> a) {
  return {a.real() / 2, a.imag() / 2};
}

}  // namespace fft_complex
}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_FFT_COMPLEX_H_
