// The coefficients of f32 tanh on AVX-512 targets (polynomial_math.cc): a
// polynomial per interval of |x|, picked by lane with vpermps, in place of
// the exp-based formula's division and its rounding corrections.
//
// |x| in [0, 9.2] is split into 16 intervals centred at k * 19/32
// (interval 0: [0, 19/64]), so the index k = round(|x| * 32/19) fits one
// 16-lane permute and t = |x| - k * 19/32 is exact (Sterbenz).  Interval k
// evaluates kTanhTable[0][k] + t*(kTanhTable[1][k] + t*(...)) by Horner's
// rule, an fma per step.  Past 9.01 tanh rounds to 1; clamped at 9.2, the
// last interval gives 1 there.
//
// fit_tanh_table.py makes the table: the coefficients one at a time, each
// rounded to f32 before the rest are refitted (minimax of the relative
// error).  Interval 0 has c0 = 0 and c1 = 1 exactly, so tiny and denormal
// |x| give x itself.  Measured over every f32 in [0, 10]: 1.03 ulp at most.
#ifndef TESSERA_BACKENDS_LLVM_IR_TANH_TABLE_H_
#define TESSERA_BACKENDS_LLVM_IR_TANH_TABLE_H_

namespace tessera {
namespace llvm_ir {

inline constexpr int kTanhIntervals = 16;
inline constexpr int kTanhDegree = 8;
inline constexpr double kTanhIntervalWidth = 19.0 / 32.0;
inline constexpr double kTanhClamp = 9.2;

// kTanhTable[i][k]: the coefficient of t^i in interval k.
inline constexpr float kTanhTable[kTanhDegree + 1][kTanhIntervals] = {
    {0, 0.53258729, 0.829801917, 0.944829464, 0.982845008, 0.994736671, 0.998391807, 0.999509275,
     0.999850333, 0.999954343, 0.999986053, 0.999995768, 0.999998689, 0.999999583, 0.999999881,
     0.99999994},
    {1, 0.716350794, 0.311428785, 0.107297339, 0.0340156481, 0.0104989931, 0.00321375811,
     0.00098123739, 0.000299362582, 9.13099066e-05, 2.78488296e-05, 8.4933572e-06, 2.59005969e-06,
     7.89916271e-07, 2.40942938e-07, 7.34834416e-08},
    {7.81543896e-09, -0.381520599, -0.258426636, -0.101387762, -0.0334279276, -0.0104476437,
     -0.00320435991, -0.000983560109, -0.000304395217, -9.11861134e-05, -2.57850352e-05,
     -9.80577533e-06, -1.14770307e-06, 1.20112122e-06, -2.76454671e-07, 4.37568787e-07},
    {-0.333334029, -0.0355936997, 0.110631853, 0.0600187443, 0.021520013, 0.00688906992,
     0.00213202275, 0.00065314013, 0.00019946869, 6.08604714e-05, 1.85638073e-05, 5.74917703e-06,
     1.75748301e-06, 5.36122229e-07, 1.63488721e-07, 4.98613701e-08},
    {2.07980556e-05, 0.146199837, -0.0055273273, -0.0223509371, -0.0101324115, -0.00325443456,
     -0.00118575001, -0.000241961738, 5.23812014e-05, -3.21290972e-05, -3.25660621e-05,
     1.18403186e-05, -1.707312e-05, -2.2629014e-05, 0, 0},
    {0.133037925, -0.0499285236, -0.0252794791, 0.00403212104, 0.00341937412, 0.00129197864,
     0.000423029851, 0.000131497058, 4.03286067e-05, 1.23160771e-05, 3.75773106e-06, 0, 0, 0, 0, 0},
    {0.00226087193, -0.0318317264, 0.0147542814, -0.00856007542, 0.000183620054, -0.00127174554,
     0.000811618054, -0.000672882714, -0.00115327758, 0, 0, 0, 0, 0, 0, 0},
    {-0.0636252686, 0.0287599862, -0.00361655885, -0.00177151174, 0, 8.05773452e-05, 0, 0, 0, 0, 0,
     0, 0, 0, 0, 0},
    {0.0220478699, 0.00570423063, 0.0109516587, 0.0578779057, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
};

}  // namespace llvm_ir
}  // namespace tessera

#endif  // TESSERA_BACKENDS_LLVM_IR_TANH_TABLE_H_
