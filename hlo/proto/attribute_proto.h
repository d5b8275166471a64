// Conversions between the IR's small attribute records (hlo_attributes.h)
// and the xla.* messages they mirror: sharding, metadata, windows, the
// dimension numbers of conv/dot/gather/scatter, padding, precision, replica
// groups, frontend attributes, ...  Field for field; import functions that
// can meet an enum value XLA does not define return an error for it.
#ifndef TESSERA_HLO_PROTO_ATTRIBUTE_PROTO_H_
#define TESSERA_HLO_PROTO_ATTRIBUTE_PROTO_H_

#include <vector>

#include "absl/status/statusor.h"
#include "hlo/ir/hlo_attributes.h"
#include "hlo/proto/hlo.pb.h"

namespace tessera {

absl::StatusOr<HloSharding> HloShardingFromProto(const xla::OpSharding& proto);
xla::OpSharding HloShardingToProto(const HloSharding& sharding);

OpMetadata OpMetadataFromProto(const xla::OpMetadata& proto);
xla::OpMetadata OpMetadataToProto(const OpMetadata& metadata);

Window WindowFromProto(const xla::Window& proto);
xla::Window WindowToProto(const Window& window);

ConvolutionDimensionNumbers ConvolutionDimensionNumbersFromProto(
    const xla::ConvolutionDimensionNumbers& proto);
xla::ConvolutionDimensionNumbers ConvolutionDimensionNumbersToProto(
    const ConvolutionDimensionNumbers& dnums);

DotDimensionNumbers DotDimensionNumbersFromProto(const xla::DotDimensionNumbers& proto);
xla::DotDimensionNumbers DotDimensionNumbersToProto(const DotDimensionNumbers& dnums);

RaggedDotDimensionNumbers RaggedDotDimensionNumbersFromProto(
    const xla::RaggedDotDimensionNumbers& proto);
xla::RaggedDotDimensionNumbers RaggedDotDimensionNumbersToProto(
    const RaggedDotDimensionNumbers& dnums);

GatherDimensionNumbers GatherDimensionNumbersFromProto(const xla::GatherDimensionNumbers& proto);
xla::GatherDimensionNumbers GatherDimensionNumbersToProto(const GatherDimensionNumbers& dnums);

ScatterDimensionNumbers ScatterDimensionNumbersFromProto(
    const xla::ScatterDimensionNumbers& proto);
xla::ScatterDimensionNumbers ScatterDimensionNumbersToProto(const ScatterDimensionNumbers& dnums);

PaddingConfig PaddingConfigFromProto(const xla::PaddingConfig& proto);
xla::PaddingConfig PaddingConfigToProto(const PaddingConfig& config);

absl::StatusOr<PrecisionConfig> PrecisionConfigFromProto(const xla::PrecisionConfig& proto);
xla::PrecisionConfig PrecisionConfigToProto(const PrecisionConfig& config);

absl::StatusOr<TriangularSolveOptions> TriangularSolveOptionsFromProto(
    const xla::TriangularSolveOptions& proto);
xla::TriangularSolveOptions TriangularSolveOptionsToProto(const TriangularSolveOptions& options);

std::vector<ReplicaGroup> ReplicaGroupsFromProto(
    const google::protobuf::RepeatedPtrField<xla::ReplicaGroup>& proto);
IotaReplicaGroupList IotaReplicaGroupListFromProto(const xla::IotaReplicaGroupListProto& proto);
xla::IotaReplicaGroupListProto IotaReplicaGroupListToProto(const IotaReplicaGroupList& list);

OutputOperandAliasing OutputOperandAliasingFromProto(const xla::OutputOperandAliasing& proto);
xla::OutputOperandAliasing OutputOperandAliasingToProto(const OutputOperandAliasing& aliasing);

FrontendAttributes FrontendAttributesFromProto(const xla::FrontendAttributes& proto);
xla::FrontendAttributes FrontendAttributesToProto(const FrontendAttributes& attributes);

StatisticsViz StatisticsVizFromProto(const xla::StatisticsViz& proto);
xla::StatisticsViz StatisticsVizToProto(const StatisticsViz& statistics);

}  // namespace tessera

#endif  // TESSERA_HLO_PROTO_ATTRIBUTE_PROTO_H_
