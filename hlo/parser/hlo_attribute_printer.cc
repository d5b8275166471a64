// Attribute values as XLA's printer spells them: windows, convolution
// dimension labels, paddings, metadata, shardings, frontend attributes,
// replica groups, aliasing, literals with their shapes, and the computation
// layout of the module header.
#include <algorithm>
#include <cctype>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/ir/literal.h"
#include "hlo/parser/hlo_printer_internal.h"
#include "hlo/parser/hlo_text_util.h"

namespace tessera {
namespace {

// XLA's window_util::ToString: only the fields some dimension needs.
bool AnyDimension(const Window& window, bool (*pred)(const WindowDimension&)) {
  return std::any_of(window.dimensions.begin(), window.dimensions.end(), pred);
}

}  // namespace

namespace printer_internal {

std::string QuotedString(absl::string_view text) {
  return absl::StrCat("\"", EscapeString(text), "\"");
}

std::string NameText(absl::string_view name, const HloPrintOptions& options) {
  return absl::StrCat(options.print_percent ? "%" : "", name);
}

std::string BracedList(const std::vector<int64_t>& values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

std::string StringOrJsonDict(absl::string_view value) {
  // The lexer's rule for a raw `{...}` value: whitespace around one
  // brace-balanced group, braces inside double-quoted strings not counted.
  size_t begin = 0;
  while (begin < value.size() && std::isspace(static_cast<unsigned char>(value[begin]))) ++begin;
  bool json = begin < value.size() && value[begin] == '{';
  if (json) {
    size_t i = begin + 1;
    int64_t depth = 1;
    while (i < value.size() && depth > 0) {
      const char c = value[i];
      if (c == '"') {
        ++i;
        while (i < value.size() && value[i] != '"') {
          if (value[i] == '\\') ++i;
          ++i;
        }
        if (i >= value.size()) break;
        ++i;
        continue;
      }
      if (c == '{') ++depth;
      if (c == '}') --depth;
      ++i;
    }
    json = depth == 0;
    while (json && i < value.size()) {
      if (!std::isspace(static_cast<unsigned char>(value[i]))) json = false;
      ++i;
    }
  }
  return json ? std::string(value) : QuotedString(value);
}

std::string ReplicaGroupsText(const HloAttributes& a) {
  if (a.iota_replica_groups.has_value()) {
    const IotaReplicaGroupList& iota = *a.iota_replica_groups;
    std::string out = absl::StrCat("[", iota.num_replica_groups, ",", iota.num_devices_per_group,
                                   "]<=[", absl::StrJoin(iota.iota_reshape_dims, ","), "]");
    if (iota.iota_reshape_dims.size() > 1) {
      absl::StrAppend(&out, "T(", absl::StrJoin(iota.iota_transpose_perm, ","), ")");
    }
    return out;
  }
  return absl::StrCat("{",
                      absl::StrJoin(a.replica_groups, ",",
                                    [](std::string* out, const ReplicaGroup& group) {
                                      absl::StrAppend(out, BracedList(group.replica_ids));
                                    }),
                      "}");
}

std::string OutputOperandAliasingText(const std::vector<OutputOperandAliasing>& aliasing) {
  return absl::StrCat("{",
                      absl::StrJoin(aliasing, ", ",
                                    [](std::string* out, const OutputOperandAliasing& entry) {
                                      absl::StrAppend(
                                          out, ShapeIndexToText(entry.output_shape_index), ": (",
                                          entry.operand_index, ", ",
                                          ShapeIndexToText(entry.operand_shape_index), ")");
                                    }),
                      "}");
}

// XLA's Literal::PrintWithLayoutOneline: "s32[2]{0} {1, 2}", tuples
// "( f32[] 1, s32[2]{0} {1, 2} )".
std::string LiteralWithLayoutText(const Literal& literal) {
  if (literal.shape().IsTuple()) {
    std::vector<std::string> elements;
    for (int64_t i = 0; i < literal.tuple_size(); ++i) {
      elements.push_back(LiteralWithLayoutText(literal.tuple_element(i)));
    }
    return absl::StrCat("( ", absl::StrJoin(elements, ", "), " )");
  }
  return absl::StrCat(ShapeToText(literal.shape(), /*print_layout=*/true), " ",
                      literal.ToStringWithoutShape());
}

std::string DotDimensionNumbersText(const DotDimensionNumbers& d) {
  std::vector<std::string> parts;
  if (!d.lhs_batch_dimensions.empty()) {
    parts.push_back(absl::StrCat("lhs_batch_dims=", BracedList(d.lhs_batch_dimensions)));
  }
  parts.push_back(absl::StrCat("lhs_contracting_dims=", BracedList(d.lhs_contracting_dimensions)));
  if (!d.rhs_batch_dimensions.empty()) {
    parts.push_back(absl::StrCat("rhs_batch_dims=", BracedList(d.rhs_batch_dimensions)));
  }
  parts.push_back(absl::StrCat("rhs_contracting_dims=", BracedList(d.rhs_contracting_dimensions)));
  return absl::StrJoin(parts, ", ");
}

}  // namespace printer_internal

using printer_internal::BracedList;

std::string PrintWindow(const Window& window) {
  std::string out;
  auto field = [&](absl::string_view heading, auto format) {
    absl::StrAppend(&out, heading, "=");
    for (size_t i = 0; i < window.dimensions.size(); ++i) {
      if (i > 0) out += "x";
      absl::StrAppend(&out, format(window.dimensions[i]));
    }
  };
  if (!window.dimensions.empty()) field("size", [](const WindowDimension& d) { return d.size; });
  if (AnyDimension(window, [](const WindowDimension& d) { return d.stride != 1; })) {
    field(" stride", [](const WindowDimension& d) { return d.stride; });
  }
  if (AnyDimension(window, [](const WindowDimension& d) {
        return d.padding_low != 0 || d.padding_high != 0;
      })) {
    field(" pad", [](const WindowDimension& d) {
      return absl::StrCat(d.padding_low, "_", d.padding_high);
    });
  }
  if (AnyDimension(window, [](const WindowDimension& d) { return d.base_dilation != 1; })) {
    field(" lhs_dilate", [](const WindowDimension& d) { return d.base_dilation; });
  }
  if (AnyDimension(window, [](const WindowDimension& d) { return d.window_dilation != 1; })) {
    field(" rhs_dilate", [](const WindowDimension& d) { return d.window_dilation; });
  }
  if (AnyDimension(window, [](const WindowDimension& d) { return d.window_reversal; })) {
    field(" rhs_reversal", [](const WindowDimension& d) { return d.window_reversal ? 1 : 0; });
  }
  return out;
}

std::string PrintConvolutionDimensionNumbers(const ConvolutionDimensionNumbers& d) {
  // One label per logical dimension; '?' where no number names it.
  auto labels = [](int64_t first, absl::string_view first_label, int64_t second,
                   absl::string_view second_label, const std::vector<int64_t>& spatial) {
    int64_t size = std::max(first, second);
    for (int64_t s : spatial) size = std::max(size, s);
    std::vector<std::string> out(std::max<int64_t>(size + 1, 0), "?");
    auto set = [&](int64_t i, std::string label) {
      if (i >= 0 && i < static_cast<int64_t>(out.size())) out[i] = std::move(label);
    };
    set(first, std::string(first_label));
    set(second, std::string(second_label));
    for (size_t i = 0; i < spatial.size(); ++i) set(spatial[i], absl::StrCat(i));
    return absl::StrJoin(out, "");
  };
  return absl::StrCat(labels(d.input_batch_dimension, "b", d.input_feature_dimension, "f",
                             d.input_spatial_dimensions),
                      "_",
                      labels(d.kernel_input_feature_dimension, "i",
                             d.kernel_output_feature_dimension, "o", d.kernel_spatial_dimensions),
                      "->",
                      labels(d.output_batch_dimension, "b", d.output_feature_dimension, "f",
                             d.output_spatial_dimensions));
}

std::string PrintPaddingConfig(const PaddingConfig& padding) {
  const bool interior =
      std::any_of(padding.dimensions.begin(), padding.dimensions.end(),
                  [](const PaddingDimension& d) { return d.interior_padding != 0; });
  return absl::StrJoin(padding.dimensions, "x", [&](std::string* out, const PaddingDimension& d) {
    absl::StrAppend(out, d.edge_padding_low, "_", d.edge_padding_high);
    if (interior) absl::StrAppend(out, "_", d.interior_padding);
  });
}

std::string PrintOpMetadata(const OpMetadata& m) {
  std::vector<std::string> parts;
  auto quoted = [](absl::string_view text) { return absl::StrCat("\"", EscapeString(text), "\""); };
  if (!m.op_type.empty()) parts.push_back(absl::StrCat("op_type=", quoted(m.op_type)));
  if (!m.op_name.empty()) parts.push_back(absl::StrCat("op_name=", quoted(m.op_name)));
  if (!m.source_file.empty()) parts.push_back(absl::StrCat("source_file=", quoted(m.source_file)));
  if (m.source_line != 0) parts.push_back(absl::StrCat("source_line=", m.source_line));
  if (m.source_end_line != 0) parts.push_back(absl::StrCat("source_end_line=", m.source_end_line));
  if (m.source_column != 0) parts.push_back(absl::StrCat("source_column=", m.source_column));
  if (m.source_end_column != 0) {
    parts.push_back(absl::StrCat("source_end_column=", m.source_end_column));
  }
  if (!m.profile_type.empty()) {
    parts.push_back(absl::StrCat("profile_type={", absl::StrJoin(m.profile_type, ","), "}"));
  }
  if (!m.deduplicated_name.empty()) {
    parts.push_back(absl::StrCat("deduplicated_name=", quoted(m.deduplicated_name)));
  }
  // Newer XLA no longer prints preserve_layout; it is kept so nothing the
  // parser reads is lost.
  if (m.preserve_layout) parts.push_back("preserve_layout=true");
  if (!m.scheduling_name.empty()) {
    parts.push_back(absl::StrCat("scheduling_name=", quoted(m.scheduling_name)));
  }
  if (m.stack_frame_id != 0) parts.push_back(absl::StrCat("stack_frame_id=", m.stack_frame_id));
  return absl::StrJoin(parts, " ");
}

std::string PrintSharding(const HloSharding& sharding, bool include_metadata) {
  using Type = HloSharding::Type;
  if (sharding.type == Type::kTuple) {
    std::string out = "{";
    for (size_t i = 0; i < sharding.tuple_shardings.size(); ++i) {
      if (i > 0) out += i % 5 == 0 ? absl::StrCat(", /*index=", i, "*/") : ", ";
      out += PrintSharding(sharding.tuple_shardings[i], include_metadata);
    }
    return out + "}";
  }
  std::string suffix;
  if (sharding.is_shard_group) {
    absl::StrAppend(&suffix, sharding.shard_group_type == 0 ? " shard_as " : " shard_like ",
                    sharding.shard_group_id);
  }
  if (include_metadata && !sharding.metadata.empty()) {
    suffix += " metadata={";
    if (sharding.metadata.size() == 1) {
      suffix += PrintOpMetadata(sharding.metadata[0]);
    } else {
      suffix += absl::StrJoin(sharding.metadata, ", ", [](std::string* s, const OpMetadata& m) {
        absl::StrAppend(s, "{", PrintOpMetadata(m), "}");
      });
    }
    suffix += "}";
  }
  switch (sharding.type) {
    case Type::kReplicated:
      return absl::StrCat("{replicated", suffix, "}");
    case Type::kManual:
      return absl::StrCat("{manual", suffix, "}");
    case Type::kUnknown:
      return absl::StrCat("{unknown", suffix, "}");
    case Type::kUnreduced:
      return absl::StrCat("{unreduced", suffix, "}");
    case Type::kMaximal:
      return absl::StrCat(
          "{maximal device=",
          sharding.tile_assignment_devices.empty() ? 0 : sharding.tile_assignment_devices[0],
          suffix, "}");
    default:
      break;
  }
  std::string out =
      absl::StrCat("{devices=[", absl::StrJoin(sharding.tile_assignment_dimensions, ","), "]");
  if (!sharding.iota_reshape_dims.empty()) {
    absl::StrAppend(&out, "<=[", absl::StrJoin(sharding.iota_reshape_dims, ","), "]");
    if (sharding.iota_reshape_dims.size() > 1) {
      absl::StrAppend(&out, "T(", absl::StrJoin(sharding.iota_transpose_perm, ","), ")");
    }
  } else {
    absl::StrAppend(&out, absl::StrJoin(sharding.tile_assignment_devices, ","));
  }
  if (sharding.replicate_on_last_tile_dim) out += " last_tile_dim_replicate";
  if (!sharding.last_tile_dims.empty()) {
    out += " last_tile_dims={";
    out += absl::StrJoin(sharding.last_tile_dims, ", ", [](std::string* s, Type t) {
      switch (t) {
        case Type::kManual:
          s->append("manual");
          break;
        case Type::kMaximal:
          s->append("maximal");
          break;
        case Type::kReplicated:
          s->append("replicated");
          break;
        case Type::kUnreduced:
          s->append("unreduced");
          break;
        default:
          s->append("error_type.");
          break;
      }
    });
    out += "}";
  }
  return absl::StrCat(out, suffix, "}");
}

std::string PrintFrontendAttributes(const FrontendAttributes& attributes) {
  // std::map keeps the keys sorted, as XLA prints them.
  return absl::StrCat(
      "{",
      absl::StrJoin(attributes, ",",
                    [](std::string* out, const std::pair<const std::string, std::string>& item) {
                      absl::StrAppend(out, item.first, "=",
                                      printer_internal::StringOrJsonDict(item.second));
                    }),
      "}");
}

std::string PrintComputationLayout(const ProgramShape& layout) {
  std::string out = "(";
  for (size_t i = 0; i < layout.parameters.size(); ++i) {
    if (i > 0) out += i % 5 == 0 ? absl::StrCat(", /*index=", i, "*/") : ", ";
    AppendShapeText(layout.parameters[i], /*print_layout=*/true, &out);
  }
  out += ")->";
  AppendShapeText(layout.result, /*print_layout=*/true, &out);
  return out;
}

}  // namespace tessera
