// Piecewise polynomial tables of f32 functions for AVX-512 targets
// (polynomial_math.cc): f(|x|) is a polynomial per interval of |x|, whose
// coefficients vpermps picks per lane from 16-lane rows, where the formulas
// elsewhere need a division (tanh) or an exp and a select (erf).
//
// |x|, clamped at `clamp` (past which f has rounded to its limit), falls in
// interval k = round(|x| / width) (centred at k * width), so that the
// index fits one 16-lane permute and t = |x| - k * width is exact
// (Sterbenz).  Then, with Q(t) = q[0][k] + t*(q[1][k] + t*(...)) by
// Horner's rule, an fma per step:
//
//   p = B + fma(M, Q(t), low[k])
//     the first `relative_intervals`: B = |x|, M = |x| (low 0): |x| + |x| Q,
//       Q fitting f/|x| - 1, so that small |x| keep their relative accuracy;
//     the others: B = base[k], M = t, base + low being f(k * width) in two
//       f32 pieces, so that the constant rounds only once, at the end;
//     with no relative intervals and base all 0 (tanh), p = fma(t, Q, low):
//       low is f(k * width) rounded, and interval 0 has low = 0 and
//       q[0] = 1, so that tiny |x| give |x| itself.
//
// fit_math_tables.py makes the tables (Q's coefficients one at a time, each
// rounded to f32 before the rest are refitted: minimax of the error each
// leaves, relative to f).  Measured over every f32 in [0, 10] (tanh) and
// [0, 5] (erf) against the C library in double: tanh 1.03 ulp at most, erf
// 0.77.
#ifndef TESSERA_BACKENDS_LLVM_IR_MATH_TABLES_H_
#define TESSERA_BACKENDS_LLVM_IR_MATH_TABLES_H_

namespace tessera {
namespace llvm_ir {

inline constexpr int kTableIntervals = 16;
inline constexpr int kMaxTableDegree = 8;

struct PiecewiseTable {
  double width;
  double clamp;
  int relative_intervals;
  float base[kTableIntervals];
  float low[kTableIntervals];
  int degree;                                     // of Q
  float q[kMaxTableDegree + 1][kTableIntervals];  // q[i]: the coefficients of t^i
};

// tanh rounds to 1 past 9.01; the last interval gives 1 at the clamp.
inline constexpr PiecewiseTable kTanhTable = {
    .width = 19.0 / 32.0,
    .clamp = 9.2,
    .relative_intervals = 0,
    .base = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    .low = {0, 0.53258729, 0.829801917, 0.944829464, 0.982845008, 0.994736671, 0.998391807,
            0.999509275, 0.999850333, 0.999954343, 0.999986053, 0.999995768, 0.999998689,
            0.999999583, 0.999999881, 0.99999994},
    .degree = 7,
    .q =
        {
            {1, 0.716350794, 0.311428785, 0.107297339, 0.0340156481, 0.0104989931, 0.00321375811,
             0.00098123739, 0.000299362582, 9.13099066e-05, 2.78488296e-05, 8.4933572e-06,
             2.59005969e-06, 7.89916271e-07, 2.40942938e-07, 7.34834416e-08},
            {7.81543896e-09, -0.381520599, -0.258426636, -0.101387762, -0.0334279276, -0.0104476437,
             -0.00320435991, -0.000983560109, -0.000304395217, -9.11861134e-05, -2.57850352e-05,
             -9.80577533e-06, -1.14770307e-06, 1.20112122e-06, -2.76454671e-07, 4.37568787e-07},
            {-0.333334029, -0.0355936997, 0.110631853, 0.0600187443, 0.021520013, 0.00688906992,
             0.00213202275, 0.00065314013, 0.00019946869, 6.08604714e-05, 1.85638073e-05,
             5.74917703e-06, 1.75748301e-06, 5.36122229e-07, 1.63488721e-07, 4.98613701e-08},
            {2.07980556e-05, 0.146199837, -0.0055273273, -0.0223509371, -0.0101324115,
             -0.00325443456, -0.00118575001, -0.000241961738, 5.23812014e-05, -3.21290972e-05,
             -3.25660621e-05, 1.18403186e-05, -1.707312e-05, -2.2629014e-05, 0, 0},
            {0.133037925, -0.0499285236, -0.0252794791, 0.00403212104, 0.00341937412, 0.00129197864,
             0.000423029851, 0.000131497058, 4.03286067e-05, 1.23160771e-05, 3.75773106e-06, 0, 0,
             0, 0, 0},
            {0.00226087193, -0.0318317264, 0.0147542814, -0.00856007542, 0.000183620054,
             -0.00127174554, 0.000811618054, -0.000672882714, -0.00115327758, 0, 0, 0, 0, 0, 0, 0},
            {-0.0636252686, 0.0287599862, -0.00361655885, -0.00177151174, 0, 8.05773452e-05, 0, 0,
             0, 0, 0, 0, 0, 0, 0, 0},
            {0.0220478699, 0.00570423063, 0.0109516587, 0.0578779057, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
             0, 0},
        },
};

// erf rounds to 1 past 3.92.
inline constexpr PiecewiseTable kErfTable = {
    .width = 17.0 / 64.0,
    .clamp = 4.1,
    .relative_intervals = 2,
    .base = {0, 0, 0.547528446, 0.740236998, 0.867058277, 0.939653337, 0.975797713, 0.99145031,
             0.997345984, 0.999277413, 0.999827683, 0.999964058, 0.999993443, 0.999998987,
             0.999999881, 1},
    .low = {0, 0, -3.21127958e-10, -1.34868907e-08, -7.69517428e-09, 1.64095226e-08, 7.78720466e-09,
            -2.15108731e-08, -1.33415687e-08, -2.13819469e-08, 1.40427305e-08, 3.8467487e-09,
            6.3601493e-09, -2.91441342e-08, -2.55476031e-08, -1.75305193e-08},
    .degree = 6,
    .q =
        {
            {0.128379166, 0.102393381, 0.850913882, 0.59796232, 0.364902884, 0.193373099,
             0.088987723, 0.0355614461, 0.0123408195, 0.00371898082, 0.000973238493, 0.000221172071,
             4.36472583e-05, 7.47996637e-06, 1.11101588e-06, 1.4332899e-07},
            {3.37729375e-07, -0.191567406, -0.452048063, -0.476501226, -0.38770932, -0.256823659,
             -0.141824186, -0.0661220625, -0.0262242425, -0.00889068749, -0.00258516357,
             -0.000646104338, -0.000139077994, -2.5815576e-05, -4.13474982e-06, -6.1441591e-07},
            {-0.376145035, -0.330316424, -0.123533845, 0.0538229868, 0.152992725, 0.162939191,
             0.121027194, 0.0701111406, 0.0330379233, 0.0129298195, 0.00425329339, 0.00118492998,
             0.000281019602, 5.69428958e-05, 1.03864895e-05, 1.57513978e-06},
            {0.000346109329, 0.110197969, 0.183506101, 0.137389541, 0.0479604416, -0.0225913394,
             -0.0491677336, -0.0431406386, -0.0263612755, -0.012491893, -0.00478744693,
             -0.00153999228, -0.000410210632, -9.22065083e-05, -1.7695098e-05, 0},
            {0.110568143, 0.0866049975, -0.00195262965, -0.0602143705, -0.0660215616, -0.0369154736,
             -0.0051449649, 0.0109048132, 0.0124372365, 0.00807226449, 0.00383176515, 0.00143248134,
             0.000435066206, 0.000109354696, 0, 0},
            {0.000829705154, -0.0374854356, -0.0487823263, -0.0207105912, 0.0104843741,
             0.0221734103, 0.0157305505, 0.00471653277, -0.00177608873, -0.00307738502,
             -0.00209680526, 0, 0, 0, 0, 0},
            {0, -0.0335420296, 0, 0.0276327003, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        },
};

}  // namespace llvm_ir
}  // namespace tessera

#endif  // TESSERA_BACKENDS_LLVM_IR_MATH_TABLES_H_
