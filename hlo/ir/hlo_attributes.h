// The typed attributes HLO instructions carry, one small struct or enum per
// concept.  They mirror the messages of XLA's xla_data.proto and hlo.proto
// (same meaning, same defaults) so that HLO text, protos and the IR map onto
// each other one to one.  Text forms are in hlo/parser; proto forms in
// hlo/proto.
#ifndef TESSERA_HLO_IR_HLO_ATTRIBUTES_H_
#define TESSERA_HLO_IR_HLO_ATTRIBUTES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hlo/ir/shape.h"

namespace tessera {

// One dimension of a windowed op (convolution, reduce-window,
// select-and-scatter).  Defaults are those of an absent field in text.
struct WindowDimension {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t window_dilation = 1;  // text: rhs_dilate
  int64_t base_dilation = 1;    // text: lhs_dilate
  bool window_reversal = false; // text: rhs_reversal
  bool operator==(const WindowDimension&) const = default;
};

struct Window {
  std::vector<WindowDimension> dimensions;
  bool operator==(const Window&) const = default;
};

struct ConvolutionDimensionNumbers {
  int64_t input_batch_dimension = 0;
  int64_t input_feature_dimension = 0;
  std::vector<int64_t> input_spatial_dimensions;
  int64_t kernel_input_feature_dimension = 0;
  int64_t kernel_output_feature_dimension = 0;
  std::vector<int64_t> kernel_spatial_dimensions;
  int64_t output_batch_dimension = 0;
  int64_t output_feature_dimension = 0;
  std::vector<int64_t> output_spatial_dimensions;
  bool operator==(const ConvolutionDimensionNumbers&) const = default;
};

struct DotDimensionNumbers {
  std::vector<int64_t> lhs_contracting_dimensions;
  std::vector<int64_t> rhs_contracting_dimensions;
  std::vector<int64_t> lhs_batch_dimensions;
  std::vector<int64_t> rhs_batch_dimensions;
  bool operator==(const DotDimensionNumbers&) const = default;
};

struct RaggedDotDimensionNumbers {
  DotDimensionNumbers dot_dimension_numbers;
  std::vector<int64_t> lhs_ragged_dimensions;
  std::vector<int64_t> rhs_group_dimensions;
  bool operator==(const RaggedDotDimensionNumbers&) const = default;
};

struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> start_index_map;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  bool operator==(const GatherDimensionNumbers&) const = default;
};

struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  bool operator==(const ScatterDimensionNumbers&) const = default;
};

// Edge (may be negative) and interior padding of one dimension of `pad`.
struct PaddingDimension {
  int64_t edge_padding_low = 0;
  int64_t edge_padding_high = 0;
  int64_t interior_padding = 0;
  bool operator==(const PaddingDimension&) const = default;
};

struct PaddingConfig {
  std::vector<PaddingDimension> dimensions;
  bool operator==(const PaddingConfig&) const = default;
};

// [start, limit) with a stride, one per dimension of `slice`.
struct SliceDimension {
  int64_t start = 0;
  int64_t limit = 0;
  int64_t stride = 1;
  bool operator==(const SliceDimension&) const = default;
};

// Numbered as xla::PrecisionConfig::Precision.
enum class Precision : int32_t { kDefault = 0, kHigh = 1, kHighest = 2, kPackedNibble = 3 };

struct PrecisionConfig {
  std::vector<Precision> operand_precision;  // empty or one per operand
  int32_t algorithm = 0;                     // xla::PrecisionConfig::Algorithm; 0 = ALG_UNSET
  bool operator==(const PrecisionConfig&) const = default;
};

enum class ComparisonDirection : uint8_t { kEq, kNe, kGe, kGt, kLe, kLt };

// How `compare` orders values.  kDefault means "the type's natural order"
// (FLOAT for floats, SIGNED/UNSIGNED for integers) and prints nothing.
enum class ComparisonType : uint8_t { kDefault, kFloat, kFloatTotalOrder, kSigned, kUnsigned };

enum class FusionKind : uint8_t { kLoop, kInput, kOutput, kCustom };

// Numbered as xla::RandomDistribution.
enum class RandomDistribution : int32_t { kInvalid = 0, kUniform = 1, kNormal = 2 };

// Numbered as xla::RandomAlgorithm.
enum class RandomAlgorithm : int32_t { kDefault = 0, kThreeFry = 1, kPhilox = 2 };

// Numbered as xla::FftType.
enum class FftType : int32_t { kFft = 0, kIfft = 1, kRfft = 2, kIrfft = 3 };

// Numbered as xla::PaddingType.
enum class PaddingType : int32_t { kInvalid = 0, kValid = 1, kSame = 2 };

// Numbered as xla::CustomCallSchedule and xla::CustomCallApiVersion.
enum class CustomCallSchedule : int32_t { kNone = 0, kLatest = 1, kEarliest = 2 };
enum class CustomCallApiVersion : int32_t {
  kUnspecified = 0,
  kOriginal = 1,
  kStatusReturning = 2,
  kStatusReturningUnified = 3,
  kTypedFfi = 4,
};

struct TriangularSolveOptions {
  // Numbered as xla::TriangularSolveOptions::Transpose.
  enum class Transpose : int32_t { kInvalid = 0, kNoTranspose = 1, kTranspose = 2, kAdjoint = 3 };
  bool left_side = false;
  bool lower = false;
  bool unit_diagonal = false;
  Transpose transpose_a = Transpose::kInvalid;
  bool operator==(const TriangularSolveOptions&) const = default;
};

struct CholeskyOptions {
  bool lower = false;
  bool operator==(const CholeskyOptions&) const = default;
};

struct ReplicaGroup {
  std::vector<int64_t> replica_ids;
  bool operator==(const ReplicaGroup&) const = default;
};

// The compact `[N,M]<=[...]T(...)` form of replica groups (XLA's
// IotaReplicaGroupList): devices iota(prod(reshape_dims)), reshaped,
// transposed by `transpose_perm`, then viewed as num_groups x group_size.
struct IotaReplicaGroupList {
  int64_t num_replica_groups = 0;
  int64_t num_devices_per_group = 0;
  std::vector<int64_t> iota_reshape_dims;
  std::vector<int64_t> iota_transpose_perm;
  bool operator==(const IotaReplicaGroupList&) const = default;
};

// A custom-call or fusion output (at `output_index`) that must alias
// operand `operand_index` at `operand_shape_index`.
struct OutputOperandAliasing {
  ShapeIndex output_shape_index;
  int64_t operand_index = 0;
  ShapeIndex operand_shape_index;
  bool operator==(const OutputOperandAliasing&) const = default;
};

// Where an instruction came from; kept and printed, never interpreted.
struct OpMetadata {
  std::string op_type;
  std::string op_name;
  std::string source_file;
  int32_t source_line = 0;
  int32_t source_end_line = 0;
  int32_t source_column = 0;
  int32_t source_end_column = 0;
  std::vector<int32_t> profile_type;
  std::string deduplicated_name;
  bool preserve_layout = false;
  int32_t stack_frame_id = 0;
  std::string scheduling_name;
  bool empty() const { return *this == OpMetadata(); }
  bool operator==(const OpMetadata&) const = default;
};

// Key/value strings a frontend attaches; kept sorted by key, as XLA prints them.
using FrontendAttributes = std::map<std::string, std::string>;

// How an array (or each leaf of a tuple) is split across devices: XLA's
// OpSharding.  Sharding does not change what a program computes on one
// device; it is carried so text and protos round-trip.
struct HloSharding {
  // Numbered as xla::OpSharding::Type.
  enum class Type : int32_t {
    kReplicated = 0,
    kMaximal = 1,
    kTuple = 2,
    kOther = 3,  // tiled
    kManual = 4,
    kUnknown = 5,
    kUnreduced = 6,
  };
  Type type = Type::kReplicated;
  std::vector<int64_t> tile_assignment_dimensions;
  std::vector<int64_t> tile_assignment_devices;  // explicit device list, or
  std::vector<int64_t> iota_reshape_dims;        // the compact iota form
  std::vector<int64_t> iota_transpose_perm;
  std::vector<HloSharding> tuple_shardings;
  bool replicate_on_last_tile_dim = false;
  std::vector<Type> last_tile_dims;  // subgroup types of trailing tile dims
  std::vector<OpMetadata> metadata;
  bool is_shard_group = false;
  int64_t shard_group_id = 0;
  int32_t shard_group_type = 0;  // 0 AS, 1 LIKE
  bool operator==(const HloSharding&) const = default;
};

// The statistics XLA's tooling attaches for visualisation; kept, not used.
struct StatisticsViz {
  int64_t stat_index_to_visualize = 0;
  std::vector<std::pair<std::string, double>> statistics;
  bool operator==(const StatisticsViz&) const = default;
};

}  // namespace tessera

#endif  // TESSERA_HLO_IR_HLO_ATTRIBUTES_H_
