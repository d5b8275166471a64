// Attribute lists and attribute values: integer lists, windows, convolution
// dimension labels, paddings, slices, metadata, frontend attributes,
// replica groups, aliasing, and shardings.
#include <algorithm>
#include <limits>
#include <numeric>
#include <tuple>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "hlo/ir/status_macros.h"
#include "hlo/parser/hlo_parser_internal.h"

namespace tessera {
namespace parser_internal {
namespace {

// Splits "3x4" / "1_2" into integers.
bool SplitInts(absl::string_view text, char separator, std::vector<int64_t>* out) {
  for (absl::string_view piece : absl::StrSplit(text, separator)) {
    int64_t value = 0;
    if (!absl::SimpleAtoi(piece, &value)) return false;
    out->push_back(value);
  }
  return true;
}

bool IsPermutation(const std::vector<int64_t>& perm) {
  std::vector<bool> used(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm.size()) || used[p]) return false;
    used[p] = true;
  }
  return true;
}

// Product of `dims`, or -1 when it overflows or a dimension is negative.
int64_t SafeProduct(absl::Span<const int64_t> dims) {
  int64_t product = 1;
  for (int64_t d : dims) {
    if (d < 0) return -1;
    if (d != 0 && product > std::numeric_limits<int64_t>::max() / d) return -1;
    product *= d;
  }
  return product;
}

}  // namespace

void CanonicalizeIota(std::vector<int64_t>* reshape_dims, std::vector<int64_t>* transpose_perm) {
  std::vector<int64_t>& dims = *reshape_dims;
  std::vector<int64_t>& perm = *transpose_perm;
  if (dims.size() != perm.size()) return;
  while (dims.size() > 1) {
    // Drop dimensions of size one.
    std::vector<int64_t> old_to_new(dims.size(), -1);
    std::vector<int64_t> new_dims;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] != 1) {
        old_to_new[i] = static_cast<int64_t>(new_dims.size());
        new_dims.push_back(dims[i]);
      }
    }
    std::vector<int64_t> new_perm;
    for (int64_t p : perm) {
      if (old_to_new[p] >= 0) new_perm.push_back(old_to_new[p]);
    }
    dims = std::move(new_dims);
    perm = std::move(new_perm);
    // Merge runs of dimensions that the transpose keeps in order.
    bool changed = false;
    for (size_t i = 1, base = 0; i < dims.size(); ++i) {
      const int64_t base_dim = perm[base];
      const int64_t dim = perm[i];
      if (base_dim + static_cast<int64_t>(i - base) == dim) {
        dims[base_dim] *= dims[dim];
        dims[dim] = 1;
        changed = true;
      } else {
        base = i;
      }
    }
    if (!changed) break;
  }
  if (dims.empty()) {
    dims = {1};
    perm = {0};
  }
}

// ---------------------------------------------------------------------------
// Attribute lists.

absl::Status HloParserImpl::ParseAttributeList(const AttrTable& table, bool allow_attributes,
                                               absl::flat_hash_set<std::string>* seen,
                                               absl::string_view context) {
  if (allow_attributes) {
    while (EatIfPresent(TokKind::kComma)) {
      const size_t offset = Offset();
      if (Kind() != TokKind::kAttributeName) return Expected("an attribute name (name=value)");
      const std::string name = lexer_.token().text;
      const AttrTable::Entry* entry = table.Find(name);
      if (entry == nullptr) {
        return ErrorAt(offset, absl::StrCat("unexpected attribute '", name, "' for ", context,
                                            "; expected one of: ", table.Names()));
      }
      if (!seen->insert(name).second) {
        return ErrorAt(offset, absl::StrCat("attribute '", name, "' is given more than once"));
      }
      lexer_.Lex();
      TS_RETURN_IF_ERROR(entry->parse());
    }
    // One of our attributes on the same line without a comma is a missing
    // comma (a new instruction "name=..." would start a new line).
    if (Kind() == TokKind::kAttributeName && table.Find(lexer_.token().text) != nullptr &&
        lexer_.LineAndColumn(Offset()).first ==
            lexer_.LineAndColumn(lexer_.PreviousTokenEnd()).first) {
      return ErrorAt(Offset(), absl::StrCat("expected ',' before attribute '",
                                            lexer_.token().text, "'"));
    }
  }
  const std::string missing = table.FirstMissing(*seen);
  if (!missing.empty()) {
    // Reported right after the last thing read: where it should be added.
    return ErrorAt(lexer_.PreviousTokenEnd(),
                   absl::StrCat("expected attribute '", missing, "' for ", context,
                                " (it is required)"));
  }
  return absl::OkStatus();
}

absl::Status HloParserImpl::ParseSubAttributes(const AttrTable& table, absl::string_view context) {
  const size_t open_offset = Offset();
  TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, absl::StrCat("'{' to begin the ", context)));
  absl::flat_hash_set<std::string> seen;
  while (Kind() != TokKind::kRbrace) {
    EatIfPresent(TokKind::kComma);
    const size_t offset = Offset();
    if (Kind() != TokKind::kAttributeName) {
      return Expected(absl::StrCat("an attribute of the ", context, " (name=value) or '}'"));
    }
    const std::string name = lexer_.token().text;
    const AttrTable::Entry* entry = table.Find(name);
    if (entry == nullptr) {
      return ErrorAt(offset, absl::StrCat("unexpected attribute '", name, "' in the ", context,
                                          "; expected one of: ", table.Names()));
    }
    if (!seen.insert(name).second) {
      return ErrorAt(offset, absl::StrCat("attribute '", name, "' is given more than once"));
    }
    lexer_.Lex();
    TS_RETURN_IF_ERROR(entry->parse());
  }
  const std::string missing = table.FirstMissing(seen);
  if (!missing.empty()) {
    return ErrorAt(open_offset,
                   absl::StrCat("the ", context, " needs the attribute '", missing, "'"));
  }
  lexer_.Lex();
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Lists and enums.

absl::Status HloParserImpl::ParseInt64List(TokKind open, TokKind close, TokKind separator,
                                           std::vector<int64_t>* result) {
  TS_RETURN_IF_ERROR(Expect(open, absl::StrCat(TokKindDescription(open), " to begin a list")));
  if (EatIfPresent(close)) return absl::OkStatus();
  do {
    int64_t value = 0;
    TS_RETURN_IF_ERROR(ParseInt64(&value));
    result->push_back(value);
  } while (EatIfPresent(separator));
  return Expect(close, absl::StrCat(TokKindDescription(separator), " or ",
                                    TokKindDescription(close), " in a list of integers"));
}

absl::Status HloParserImpl::ParseBracedInt64List(std::vector<int64_t>* result) {
  return ParseInt64List(TokKind::kLbrace, TokKind::kRbrace, TokKind::kComma, result);
}

absl::Status HloParserImpl::ParseBracedInt64ListList(std::vector<std::vector<int64_t>>* result) {
  TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to begin a list of lists"));
  if (EatIfPresent(TokKind::kRbrace)) return absl::OkStatus();
  do {
    result->emplace_back();
    TS_RETURN_IF_ERROR(ParseBracedInt64List(&result->back()));
  } while (EatIfPresent(TokKind::kComma));
  return Expect(TokKind::kRbrace, "'}' to end the list of lists");
}

absl::Status HloParserImpl::ParseSingleBracedInt64(int64_t* result, absl::string_view what) {
  const size_t offset = Offset();
  std::vector<int64_t> values;
  TS_RETURN_IF_ERROR(ParseBracedInt64List(&values));
  if (values.size() != 1) {
    return ErrorAt(offset, absl::StrCat("expected exactly one ", what, ", got ", values.size()));
  }
  *result = values[0];
  return absl::OkStatus();
}

absl::Status HloParserImpl::ParseBoolList(std::vector<bool>* result) {
  TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to begin a list of booleans"));
  if (EatIfPresent(TokKind::kRbrace)) return absl::OkStatus();
  do {
    bool value = false;
    TS_RETURN_IF_ERROR(ParseBool(&value));
    result->push_back(value);
  } while (EatIfPresent(TokKind::kComma));
  return Expect(TokKind::kRbrace, "'}' to end the list of booleans");
}

absl::Status HloParserImpl::ParseBoolListOrBool(std::vector<bool>* result) {
  if (Kind() == TokKind::kwTrue || Kind() == TokKind::kwFalse) {
    bool value = false;
    TS_RETURN_IF_ERROR(ParseBool(&value));
    result->push_back(value);
    return absl::OkStatus();
  }
  if (Kind() != TokKind::kLbrace) return Expected("true, false or a list of booleans");
  return ParseBoolList(result);
}

absl::Status HloParserImpl::ParseEnum(absl::Span<const EnumSpelling> table, bool ignore_case,
                                      absl::string_view what, int32_t* value) {
  if (Kind() == TokKind::kIdent) {
    std::optional<int32_t> found = ValueOf(table, lexer_.token().text, ignore_case);
    if (found.has_value()) {
      *value = *found;
      lexer_.Lex();
      return absl::OkStatus();
    }
  }
  return Expected(absl::StrCat(what, " (one of ", JoinSpellings(table), ")"));
}

// ---------------------------------------------------------------------------
// Windows, convolution labels, paddings, slices, precisions.

// window ::= '{' (size=DxD | stride=DxD | pad=pads | lhs_dilate=DxD |
//                 rhs_dilate=DxD | rhs_reversal=DxD)* '}'
absl::Status HloParserImpl::ParseWindow(Window* window, bool expect_braces) {
  const size_t start = Offset();
  if (expect_braces) TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to begin the window"));
  std::vector<int64_t> size, stride, lhs_dilate, rhs_dilate, rhs_reversal;
  std::vector<std::pair<int64_t, int64_t>> pad;
  bool has_pad = false;
  const TokKind end = expect_braces ? TokKind::kRbrace : TokKind::kEof;
  while (Kind() != end) {
    const size_t offset = Offset();
    if (Kind() != TokKind::kAttributeName) {
      return Expected(
          "a window attribute (size=, stride=, pad=, lhs_dilate=, rhs_dilate=, rhs_reversal=)");
    }
    const std::string field = lexer_.token().text;
    lexer_.Lex();
    auto parse_dxd = [&](std::vector<int64_t>* out) -> absl::Status {
      if (!out->empty()) {
        return ErrorAt(offset, absl::StrCat("window attribute '", field, "' is given twice"));
      }
      if (Kind() == TokKind::kInt) {
        out->push_back(lexer_.token().int_value);
      } else if (Kind() == TokKind::kDxD) {
        if (!SplitInts(lexer_.token().text, 'x', out)) {
          return ErrorAt(Offset(), "window dimension out of range");
        }
      } else {
        return Expected(absl::StrCat("window ", field, " like 3x3"));
      }
      lexer_.Lex();
      return absl::OkStatus();
    };
    if (field == "size") {
      TS_RETURN_IF_ERROR(parse_dxd(&size));
    } else if (field == "stride") {
      TS_RETURN_IF_ERROR(parse_dxd(&stride));
    } else if (field == "lhs_dilate") {
      TS_RETURN_IF_ERROR(parse_dxd(&lhs_dilate));
    } else if (field == "rhs_dilate") {
      TS_RETURN_IF_ERROR(parse_dxd(&rhs_dilate));
    } else if (field == "rhs_reversal") {
      TS_RETURN_IF_ERROR(parse_dxd(&rhs_reversal));
    } else if (field == "pad") {
      if (has_pad) return ErrorAt(offset, "window attribute 'pad' is given twice");
      has_pad = true;
      if (Kind() != TokKind::kPad) return Expected("window padding like 0_0x1_1");
      for (absl::string_view piece : absl::StrSplit(lexer_.token().text, 'x')) {
        std::vector<int64_t> low_high;
        if (!SplitInts(piece, '_', &low_high) || low_high.size() != 2) {
          return ErrorAt(Offset(), "expected window padding as low_high per dimension");
        }
        pad.emplace_back(low_high[0], low_high[1]);
      }
      lexer_.Lex();
    } else {
      return ErrorAt(offset, absl::StrCat("unexpected window attribute '", field,
                                          "'; expected size, stride, pad, lhs_dilate, "
                                          "rhs_dilate or rhs_reversal"));
    }
  }
  auto check = [&](size_t n, absl::string_view name) -> absl::Status {
    if (n != 0 && n != size.size()) {
      return ErrorAt(start, absl::StrCat("window ", name, " has ", n,
                                         " dimensions but size has ", size.size()));
    }
    return absl::OkStatus();
  };
  TS_RETURN_IF_ERROR(check(stride.size(), "stride"));
  TS_RETURN_IF_ERROR(check(pad.size(), "pad"));
  TS_RETURN_IF_ERROR(check(lhs_dilate.size(), "lhs_dilate"));
  TS_RETURN_IF_ERROR(check(rhs_dilate.size(), "rhs_dilate"));
  TS_RETURN_IF_ERROR(check(rhs_reversal.size(), "rhs_reversal"));
  window->dimensions.clear();
  for (size_t i = 0; i < size.size(); ++i) {
    WindowDimension dim;
    dim.size = size[i];
    if (!stride.empty()) dim.stride = stride[i];
    if (!pad.empty()) {
      dim.padding_low = pad[i].first;
      dim.padding_high = pad[i].second;
    }
    if (!lhs_dilate.empty()) dim.base_dilation = lhs_dilate[i];
    if (!rhs_dilate.empty()) dim.window_dilation = rhs_dilate[i];
    if (!rhs_reversal.empty()) dim.window_reversal = rhs_reversal[i] == 1;
    window->dimensions.push_back(dim);
  }
  if (expect_braces) lexer_.Lex();
  return absl::OkStatus();
}

// dim_labels ::= lhs '_' rhs '->' out, e.g. b01f_01io->b01f.  Digits name
// spatial dimensions, '?' marks a dimension the numbers do not mention.
absl::Status HloParserImpl::ParseConvolutionDimensionNumbers(ConvolutionDimensionNumbers* dnums) {
  if (Kind() != TokKind::kDimLabels) return Expected("dimension labels like b01f_01io->b01f");
  const size_t offset = Offset();
  const std::string text = lexer_.token().text;
  const size_t underscore = text.find('_');
  const size_t arrow = text.find("->");
  const std::string lhs = text.substr(0, underscore);
  const std::string rhs = text.substr(underscore + 1, arrow - underscore - 1);
  const std::string out = text.substr(arrow + 2);

  // Assigns each label of `labels` to `first`/`second` (the two letters) or
  // to its spatial slot.
  auto assign = [&](const std::string& labels, char first_letter, char second_letter,
                    absl::string_view which, int64_t* first, int64_t* second,
                    std::vector<int64_t>* spatial) -> absl::Status {
    std::vector<bool> used(128, false);
    int64_t spatial_count = 0;
    for (char c : labels) {
      if (c == '?') continue;
      if (used[static_cast<unsigned char>(c)]) {
        return ErrorAt(offset, absl::StrCat("expected unique ", which,
                                            " dimension labels, got ", labels));
      }
      used[static_cast<unsigned char>(c)] = true;
      if (c != first_letter && c != second_letter) ++spatial_count;
    }
    if (!used[static_cast<unsigned char>(first_letter)] ||
        !used[static_cast<unsigned char>(second_letter)]) {
      return ErrorAt(offset, absl::StrCat("expected ", which, " labels to contain '",
                                          std::string(1, first_letter), "' and '",
                                          std::string(1, second_letter), "', got ", labels));
    }
    spatial->assign(spatial_count, -1);
    for (size_t i = 0; i < labels.size(); ++i) {
      const char c = labels[i];
      if (c == '?') continue;
      if (c == first_letter) {
        *first = static_cast<int64_t>(i);
      } else if (c == second_letter) {
        *second = static_cast<int64_t>(i);
      } else if (c >= '0' && c - '0' < spatial_count) {
        (*spatial)[c - '0'] = static_cast<int64_t>(i);
      } else {
        return ErrorAt(offset, absl::StrCat("expected ", which, " labels to be ",
                                            std::string(1, first_letter), ", ",
                                            std::string(1, second_letter), ", ? or spatial dimensions 0-",
                                            spatial_count - 1, ", got '", std::string(1, c),
                                            "' in ", labels));
      }
    }
    return absl::OkStatus();
  };
  TS_RETURN_IF_ERROR(assign(lhs, 'b', 'f', "input", &dnums->input_batch_dimension,
                            &dnums->input_feature_dimension, &dnums->input_spatial_dimensions));
  TS_RETURN_IF_ERROR(assign(rhs, 'i', 'o', "kernel", &dnums->kernel_input_feature_dimension,
                            &dnums->kernel_output_feature_dimension,
                            &dnums->kernel_spatial_dimensions));
  TS_RETURN_IF_ERROR(assign(out, 'b', 'f', "output", &dnums->output_batch_dimension,
                            &dnums->output_feature_dimension, &dnums->output_spatial_dimensions));
  if (dnums->input_spatial_dimensions.size() != dnums->kernel_spatial_dimensions.size() ||
      dnums->input_spatial_dimensions.size() != dnums->output_spatial_dimensions.size()) {
    return ErrorAt(offset, absl::StrCat("input, kernel and output must have the same number of "
                                        "spatial dimensions, got ",
                                        dnums->input_spatial_dimensions.size(), ", ",
                                        dnums->kernel_spatial_dimensions.size(), " and ",
                                        dnums->output_spatial_dimensions.size()));
  }
  lexer_.Lex();
  return absl::OkStatus();
}

// padding ::= low_high[_interior] ('x' low_high[_interior])*
absl::Status HloParserImpl::ParsePaddingConfig(PaddingConfig* padding) {
  if (Kind() != TokKind::kPad) return Expected("padding like 0_0_0x1_1_0");
  padding->dimensions.clear();
  for (absl::string_view piece : absl::StrSplit(lexer_.token().text, 'x')) {
    std::vector<int64_t> values;
    if (!SplitInts(piece, '_', &values) || (values.size() != 2 && values.size() != 3)) {
      return ErrorAt(Offset(), "expected padding as low_high or low_high_interior per dimension");
    }
    PaddingDimension dim;
    dim.edge_padding_low = values[0];
    dim.edge_padding_high = values[1];
    if (values.size() == 3) dim.interior_padding = values[2];
    padding->dimensions.push_back(dim);
  }
  lexer_.Lex();
  return absl::OkStatus();
}

// slice ::= '{' ['[' start ':' limit [':' stride] ']' (',' ...)*] '}'
absl::Status HloParserImpl::ParseSliceRanges(std::vector<SliceDimension>* slices) {
  TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to begin the slice ranges"));
  if (EatIfPresent(TokKind::kRbrace)) return absl::OkStatus();
  do {
    const size_t offset = Offset();
    std::vector<int64_t> range;
    TS_RETURN_IF_ERROR(
        ParseInt64List(TokKind::kLsquare, TokKind::kRsquare, TokKind::kColon, &range));
    if (range.size() != 2 && range.size() != 3) {
      return ErrorAt(offset, absl::StrCat("expected [start:limit] or [start:limit:stride], got ",
                                          range.size(), " numbers"));
    }
    SliceDimension slice;
    slice.start = range[0];
    slice.limit = range[1];
    slice.stride = range.size() == 3 ? range[2] : 1;
    slices->push_back(slice);
  } while (EatIfPresent(TokKind::kComma));
  return Expect(TokKind::kRbrace, "'}' to end the slice ranges");
}

absl::Status HloParserImpl::ParsePrecisionList(std::vector<Precision>* precisions) {
  TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to begin the operand precisions"));
  if (EatIfPresent(TokKind::kRbrace)) return absl::OkStatus();
  do {
    int32_t value = 0;
    TS_RETURN_IF_ERROR(ParseEnum(PrecisionSpellings(), /*ignore_case=*/true, "a precision", &value));
    precisions->push_back(static_cast<Precision>(value));
  } while (EatIfPresent(TokKind::kComma));
  return Expect(TokKind::kRbrace, "'}' to end the operand precisions");
}

// ---------------------------------------------------------------------------
// Metadata, frontend attributes, statistics, raw configs.

absl::Status HloParserImpl::ParseMetadata(OpMetadata* metadata) {
  auto int32_value = [this](int32_t* out) -> absl::Status {
    const size_t offset = Offset();
    int64_t value = 0;
    TS_RETURN_IF_ERROR(ParseInt64(&value));
    if (value < std::numeric_limits<int32_t>::min() ||
        value > std::numeric_limits<int32_t>::max()) {
      return ErrorAt(offset, "value out of range for int32");
    }
    *out = static_cast<int32_t>(value);
    return absl::OkStatus();
  };
  AttrTable table;
  table.Add("op_type", false, [&] { return ParseString(&metadata->op_type); });
  table.Add("op_name", false, [&] { return ParseString(&metadata->op_name); });
  table.Add("source_file", false, [&] { return ParseString(&metadata->source_file); });
  table.Add("source_line", false, [&] { return int32_value(&metadata->source_line); });
  table.Add("source_end_line", false, [&] { return int32_value(&metadata->source_end_line); });
  table.Add("source_column", false, [&] { return int32_value(&metadata->source_column); });
  table.Add("source_end_column", false, [&] { return int32_value(&metadata->source_end_column); });
  table.Add("profile_type", false, [&] {
    std::vector<int64_t> types;
    TS_RETURN_IF_ERROR(ParseBracedInt64List(&types));
    for (int64_t type : types) metadata->profile_type.push_back(static_cast<int32_t>(type));
    return absl::OkStatus();
  });
  table.Add("deduplicated_name", false, [&] { return ParseString(&metadata->deduplicated_name); });
  table.Add("preserve_layout", false, [&] { return ParseBool(&metadata->preserve_layout); });
  table.Add("scheduling_name", false, [&] { return ParseString(&metadata->scheduling_name); });
  table.Add("stack_frame_id", false, [&] { return int32_value(&metadata->stack_frame_id); });
  return ParseSubAttributes(table, "metadata");
}

// A single `{op_name=...}` or a list `{{...}, {...}}`.
absl::Status HloParserImpl::ParseMetadataList(std::vector<OpMetadata>* metadata) {
  if (Kind() == TokKind::kLbrace && lexer_.LookAhead() == TokKind::kLbrace) {
    lexer_.Lex();
    do {
      metadata->emplace_back();
      TS_RETURN_IF_ERROR(ParseMetadata(&metadata->back()));
    } while (EatIfPresent(TokKind::kComma));
    return Expect(TokKind::kRbrace, "'}' to end the metadata list");
  }
  metadata->emplace_back();
  return ParseMetadata(&metadata->back());
}

// frontend_attributes ::= '{' [name '=' (string | {json}) (',' ...)*] '}'
absl::Status HloParserImpl::ParseFrontendAttributes(FrontendAttributes* attributes) {
  TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to begin the frontend attributes"));
  if (EatIfPresent(TokKind::kRbrace)) return absl::OkStatus();
  do {
    if (Kind() != TokKind::kAttributeName) return Expected("a frontend attribute (name=value)");
    const std::string key = lexer_.token().text;
    lexer_.Lex();
    std::string value;
    TS_RETURN_IF_ERROR(ParseStringOrJsonDict(&value));
    (*attributes)[key] = std::move(value);
  } while (EatIfPresent(TokKind::kComma));
  return Expect(TokKind::kRbrace, "'}' to end the frontend attributes");
}

// statistics ::= '{' ['visualizing_index=' int (',' name '=' number)*] '}'
absl::Status HloParserImpl::ParseStatistics(StatisticsViz* statistics) {
  TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to begin the statistics"));
  if (EatIfPresent(TokKind::kRbrace)) return absl::OkStatus();
  if (Kind() != TokKind::kAttributeName || lexer_.token().text != "visualizing_index") {
    return Expected("'visualizing_index='");
  }
  lexer_.Lex();
  TS_RETURN_IF_ERROR(ParseInt64(&statistics->stat_index_to_visualize));
  while (EatIfPresent(TokKind::kComma)) {
    if (Kind() != TokKind::kAttributeName) return Expected("a statistic (name=value)");
    std::string name = lexer_.token().text;
    lexer_.Lex();
    if (Kind() != TokKind::kInt && Kind() != TokKind::kDecimal) return Expected("a number");
    double value = 0;
    TS_RETURN_IF_ERROR(ParseDouble(&value));
    statistics->statistics.emplace_back(std::move(name), value);
  }
  return Expect(TokKind::kRbrace, "'}' to end the statistics");
}

absl::Status HloParserImpl::ParseStringOrJsonDict(std::string* result) {
  if (Kind() == TokKind::kString) return ParseString(result);
  if (Kind() == TokKind::kLbrace) {
    if (!lexer_.LexJsonDict()) return ErrorAt(Offset(), lexer_.token().text);
    *result = lexer_.token().text;
    lexer_.Lex();
    return absl::OkStatus();
  }
  return Expected("a quoted string or a {...} dictionary");
}

// ---------------------------------------------------------------------------
// Collectives and aliasing.

// replica_groups ::= '{' ['{' ints '}' (',' ...)*] '}' | '[' n ',' m ']' iota
absl::Status HloParserImpl::ParseReplicaGroups(HloAttributes* attrs) {
  if (Kind() == TokKind::kLbrace) {
    std::vector<std::vector<int64_t>> groups;
    TS_RETURN_IF_ERROR(ParseBracedInt64ListList(&groups));
    for (std::vector<int64_t>& ids : groups) attrs->replica_groups.push_back({std::move(ids)});
    return absl::OkStatus();
  }
  if (Kind() != TokKind::kLsquare) return Expected("replica groups like {{0,1}} or [2,2]<=[4]");
  const size_t offset = Offset();
  std::vector<int64_t> dims;
  TS_RETURN_IF_ERROR(ParseInt64List(TokKind::kLsquare, TokKind::kRsquare, TokKind::kComma, &dims));
  if (dims.size() != 2) {
    return ErrorAt(offset, absl::StrCat("expected [groups,group_size] in iota replica groups, got ",
                                        dims.size(), " dimensions"));
  }
  TS_RETURN_IF_ERROR(Expect(TokKind::kLeq, "'<=' in iota replica groups"));
  IotaReplicaGroupList iota;
  iota.num_replica_groups = dims[0];
  iota.num_devices_per_group = dims[1];
  TS_RETURN_IF_ERROR(ParseIotaArray(&iota.iota_reshape_dims, &iota.iota_transpose_perm));
  attrs->iota_replica_groups = std::move(iota);
  return absl::OkStatus();
}

absl::Status HloParserImpl::ParseShapeIndex(ShapeIndex* index) {
  return ParseBracedInt64List(index);
}

// {out_index: (operand, operand_index), ...}
absl::Status HloParserImpl::ParseOutputOperandAliasing(
    std::vector<OutputOperandAliasing>* aliasing) {
  TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to begin the output-operand aliasing"));
  if (EatIfPresent(TokKind::kRbrace)) return absl::OkStatus();
  do {
    OutputOperandAliasing entry;
    TS_RETURN_IF_ERROR(ParseShapeIndex(&entry.output_shape_index));
    TS_RETURN_IF_ERROR(Expect(TokKind::kColon, "':' after the output shape index"));
    TS_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' before the operand number"));
    TS_RETURN_IF_ERROR(ParseInt64(&entry.operand_index));
    TS_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' after the operand number"));
    TS_RETURN_IF_ERROR(ParseShapeIndex(&entry.operand_shape_index));
    TS_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' after the operand shape index"));
    aliasing->push_back(std::move(entry));
  } while (EatIfPresent(TokKind::kComma));
  return Expect(TokKind::kRbrace, "'}' to end the output-operand aliasing");
}

// { {out}: (param, {index}[, may-alias|must-alias]), ... }, kept sorted by
// output index as XLA stores them.
absl::Status HloParserImpl::ParseInputOutputAliases(std::vector<InputOutputAlias>* aliases) {
  TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to begin the input-output aliases"));
  while (Kind() != TokKind::kRbrace) {
    const size_t offset = Offset();
    InputOutputAlias alias;
    TS_RETURN_IF_ERROR(ParseShapeIndex(&alias.output_index));
    TS_RETURN_IF_ERROR(Expect(TokKind::kColon, "':' after the output shape index"));
    TS_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' before the parameter number"));
    TS_RETURN_IF_ERROR(ParseInt64(&alias.parameter_number));
    TS_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' after the parameter number"));
    TS_RETURN_IF_ERROR(ParseShapeIndex(&alias.parameter_index));
    if (EatIfPresent(TokKind::kComma)) {
      if (Kind() == TokKind::kIdent && lexer_.token().text == "may-alias") {
        alias.kind = InputOutputAlias::Kind::kMayAlias;
      } else if (Kind() == TokKind::kIdent && lexer_.token().text == "must-alias") {
        alias.kind = InputOutputAlias::Kind::kMustAlias;
      } else {
        return Expected("may-alias or must-alias");
      }
      lexer_.Lex();
    }
    TS_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' to end the alias"));
    for (const InputOutputAlias& other : *aliases) {
      if (other.output_index == alias.output_index) {
        return ErrorAt(offset, absl::StrCat("output ", ShapeIndexToText(alias.output_index),
                                            " is aliased more than once"));
      }
    }
    aliases->push_back(std::move(alias));
    if (!EatIfPresent(TokKind::kComma)) break;
  }
  std::stable_sort(aliases->begin(), aliases->end(),
                   [](const InputOutputAlias& a, const InputOutputAlias& b) {
                     return a.output_index < b.output_index;
                   });
  return Expect(TokKind::kRbrace, "'}' to end the input-output aliases");
}

// { (param, {index}), ... }, kept sorted and without duplicates.
absl::Status HloParserImpl::ParseBufferDonors(std::vector<BufferDonor>* donors) {
  TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to begin the buffer donors"));
  while (Kind() != TokKind::kRbrace) {
    BufferDonor donor;
    TS_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' before the parameter number"));
    TS_RETURN_IF_ERROR(ParseInt64(&donor.parameter_number));
    TS_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' after the parameter number"));
    TS_RETURN_IF_ERROR(ParseShapeIndex(&donor.parameter_index));
    TS_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' to end the buffer donor"));
    donors->push_back(std::move(donor));
    if (!EatIfPresent(TokKind::kComma)) break;
  }
  auto key = [](const BufferDonor& d) { return std::tie(d.parameter_number, d.parameter_index); };
  std::sort(donors->begin(), donors->end(),
            [&](const BufferDonor& a, const BufferDonor& b) { return key(a) < key(b); });
  donors->erase(std::unique(donors->begin(), donors->end()), donors->end());
  return Expect(TokKind::kRbrace, "'}' to end the buffer donors");
}

// entry_computation_layout ::= '{' '(' [shape (',' shape)*] ')' '->' shape '}'
absl::Status HloParserImpl::ParseComputationLayout(ProgramShape* layout) {
  TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to begin the computation layout"));
  TS_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' to begin the parameter shapes"));
  if (Kind() != TokKind::kRparen) {
    do {
      layout->parameters.emplace_back();
      TS_RETURN_IF_ERROR(ParseShape(&layout->parameters.back()));
    } while (EatIfPresent(TokKind::kComma));
  }
  TS_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' to end the parameter shapes"));
  TS_RETURN_IF_ERROR(Expect(TokKind::kArrow, "'->' before the result shape"));
  TS_RETURN_IF_ERROR(ParseShape(&layout->result));
  return Expect(TokKind::kRbrace, "'}' to end the computation layout");
}

absl::Status HloParserImpl::ParseShapeList(std::vector<Shape>* shapes) {
  TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to begin a list of shapes"));
  if (EatIfPresent(TokKind::kRbrace)) return absl::OkStatus();
  do {
    shapes->emplace_back();
    TS_RETURN_IF_ERROR(ParseShape(&shapes->back()));
  } while (EatIfPresent(TokKind::kComma));
  return Expect(TokKind::kRbrace, "'}' to end the list of shapes");
}

// ---------------------------------------------------------------------------
// Shardings.

// sharding ::= single | '{' [single (',' single)*] '}'   (a tuple)
absl::Status HloParserImpl::ParseSharding(HloSharding* sharding) {
  TS_RETURN_IF_ERROR(EnterNesting());
  struct Leave {
    HloParserImpl* parser;
    ~Leave() { parser->LeaveNesting(); }
  } leave{this};
  TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to begin the sharding"));
  if (Kind() != TokKind::kLbrace && Kind() != TokKind::kRbrace) {
    return ParseSingleSharding(sharding, /*brace_consumed=*/true);
  }
  *sharding = HloSharding();
  sharding->type = HloSharding::Type::kTuple;
  if (Kind() != TokKind::kRbrace) {
    do {
      sharding->tuple_shardings.emplace_back();
      TS_RETURN_IF_ERROR(
          ParseSingleSharding(&sharding->tuple_shardings.back(), /*brace_consumed=*/false));
    } while (EatIfPresent(TokKind::kComma));
  }
  return Expect(TokKind::kRbrace, "'}' to end the tuple sharding");
}

absl::Status HloParserImpl::ParseSingleSharding(HloSharding* sharding, bool brace_consumed) {
  if (!brace_consumed) TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to begin a sharding"));
  const size_t offset = Offset();
  if (Kind() == TokKind::kIdent &&
      (lexer_.token().text == "mesh" || lexer_.token().text == "maximal_mesh")) {
    return ErrorAt(offset, "named (mesh) shardings are not supported");
  }
  bool replicated = false, maximal = false, manual = false, unknown = false, unreduced = false;
  bool last_tile_dim_replicate = false;
  std::optional<int64_t> device;
  HloSharding tiled;
  bool has_tile_assignment = false;
  std::vector<HloSharding::Type> subgroup_types;
  std::vector<OpMetadata> metadata;
  std::optional<std::pair<int32_t, int64_t>> shard_group;  // (type, id)
  while (Kind() != TokKind::kRbrace) {
    switch (Kind()) {
      case TokKind::kwReplicated: replicated = true; lexer_.Lex(); break;
      case TokKind::kwMaximal: maximal = true; lexer_.Lex(); break;
      case TokKind::kwManual: manual = true; lexer_.Lex(); break;
      case TokKind::kwUnknown: unknown = true; lexer_.Lex(); break;
      case TokKind::kwUnreduced: unreduced = true; lexer_.Lex(); break;
      case TokKind::kwLastTileDimReplicate: last_tile_dim_replicate = true; lexer_.Lex(); break;
      case TokKind::kwShardAs:
      case TokKind::kwShardLike: {
        const int32_t type = Kind() == TokKind::kwShardAs ? 0 : 1;
        lexer_.Lex();
        int64_t id = 0;
        TS_RETURN_IF_ERROR(ParseInt64(&id));
        shard_group = {type, id};
        break;
      }
      case TokKind::kAttributeName: {
        const std::string name = lexer_.token().text;
        const size_t name_offset = Offset();
        lexer_.Lex();
        if (name == "device") {
          int64_t value = 0;
          TS_RETURN_IF_ERROR(ParseInt64(&value));
          device = value;
        } else if (name == "devices") {
          TS_RETURN_IF_ERROR(ParseTileAssignment(&tiled));
          has_tile_assignment = true;
        } else if (name == "metadata") {
          TS_RETURN_IF_ERROR(ParseMetadataList(&metadata));
        } else if (name == "last_tile_dims") {
          TS_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to begin the last tile dims"));
          if (Kind() != TokKind::kRbrace) {
            do {
              switch (Kind()) {
                case TokKind::kwManual: subgroup_types.push_back(HloSharding::Type::kManual); break;
                case TokKind::kwMaximal: subgroup_types.push_back(HloSharding::Type::kMaximal); break;
                case TokKind::kwReplicated:
                  subgroup_types.push_back(HloSharding::Type::kReplicated);
                  break;
                case TokKind::kwUnreduced:
                  subgroup_types.push_back(HloSharding::Type::kUnreduced);
                  break;
                default:
                  return Expected("manual, maximal, replicated or unreduced");
              }
              lexer_.Lex();
            } while (EatIfPresent(TokKind::kComma));
          }
          TS_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}' to end the last tile dims"));
        } else {
          return ErrorAt(name_offset,
                         absl::StrCat("unexpected sharding attribute '", name,
                                      "'; expected device=, devices=, metadata= or "
                                      "last_tile_dims="));
        }
        break;
      }
      default:
        return Expected("a sharding attribute or '}'");
    }
  }
  lexer_.Lex();

  HloSharding result;
  auto no_devices = [&](absl::string_view kind) -> absl::Status {
    if (device.has_value() || has_tile_assignment) {
      return ErrorAt(offset, absl::StrCat(kind, " shardings cannot have devices"));
    }
    return absl::OkStatus();
  };
  if (replicated) {
    TS_RETURN_IF_ERROR(no_devices("replicated"));
    result.type = HloSharding::Type::kReplicated;
  } else if (maximal) {
    if (!device.has_value() || has_tile_assignment) {
      return ErrorAt(offset, "maximal shardings need exactly one device (device=N)");
    }
    result.type = HloSharding::Type::kMaximal;
    result.tile_assignment_dimensions = {1};
    result.tile_assignment_devices = {*device};
  } else if (manual) {
    TS_RETURN_IF_ERROR(no_devices("manual"));
    result.type = HloSharding::Type::kManual;
  } else if (unknown) {
    TS_RETURN_IF_ERROR(no_devices("unknown"));
    result.type = HloSharding::Type::kUnknown;
  } else if (unreduced) {
    TS_RETURN_IF_ERROR(no_devices("unreduced"));
    result.type = HloSharding::Type::kUnreduced;
  } else {
    if (!has_tile_assignment) {
      return ErrorAt(offset, "expected a tile assignment (devices=[...]) in a tiled sharding");
    }
    result = std::move(tiled);
    result.type = HloSharding::Type::kOther;
    const int64_t tiles = SafeProduct(result.tile_assignment_dimensions);
    if (result.iota_reshape_dims.empty()) {
      if (result.tile_assignment_devices.size() <= 1) {
        return ErrorAt(offset, "tiled shardings need more than one device");
      }
      if (tiles != static_cast<int64_t>(result.tile_assignment_devices.size())) {
        return ErrorAt(offset, absl::StrCat("the tile assignment has ", tiles, " tiles but lists ",
                                            result.tile_assignment_devices.size(), " devices"));
      }
    } else if (tiles != SafeProduct(result.iota_reshape_dims)) {
      return ErrorAt(offset, "the tile assignment and its iota device list differ in size");
    }
    if (last_tile_dim_replicate) {
      if (!subgroup_types.empty()) {
        return ErrorAt(offset, "last_tile_dim_replicate and last_tile_dims cannot both be given");
      }
      subgroup_types.push_back(HloSharding::Type::kReplicated);
    }
    const int64_t data_rank = static_cast<int64_t>(result.tile_assignment_dimensions.size()) -
                              static_cast<int64_t>(subgroup_types.size());
    if (data_rank < 0) {
      return ErrorAt(offset, "more last tile dims than tile assignment dimensions");
    }
    // XLA's normal forms: a tiling that only splits into one kind of
    // subgroup over untiled data is that kind of sharding; a single
    // replicated subgroup is "last_tile_dim_replicate".
    const bool same_kind =
        !subgroup_types.empty() &&
        std::all_of(subgroup_types.begin(), subgroup_types.end(),
                    [&](HloSharding::Type t) { return t == subgroup_types[0]; });
    const bool untiled_data =
        SafeProduct(absl::MakeConstSpan(result.tile_assignment_dimensions).first(data_rank)) == 1;
    if (same_kind && untiled_data &&
        (subgroup_types[0] == HloSharding::Type::kReplicated ||
         subgroup_types[0] == HloSharding::Type::kManual)) {
      const HloSharding::Type kind = subgroup_types[0];
      result = HloSharding();
      result.type = kind;
    } else if (subgroup_types.size() == 1 &&
               subgroup_types[0] == HloSharding::Type::kReplicated) {
      result.replicate_on_last_tile_dim = true;
    } else {
      result.last_tile_dims = std::move(subgroup_types);
    }
  }
  result.metadata = std::move(metadata);
  if (shard_group.has_value()) {
    result.is_shard_group = true;
    result.shard_group_type = shard_group->first;
    result.shard_group_id = shard_group->second;
  }
  *sharding = std::move(result);
  return absl::OkStatus();
}

// devices=[d0,d1,...] (device list | '<=' iota)
absl::Status HloParserImpl::ParseTileAssignment(HloSharding* sharding) {
  TS_RETURN_IF_ERROR(ParseInt64List(TokKind::kLsquare, TokKind::kRsquare, TokKind::kComma,
                                    &sharding->tile_assignment_dimensions));
  if (sharding->tile_assignment_dimensions.empty()) {
    return ErrorAt(Offset(), "expected a non-empty tile assignment shape");
  }
  if (EatIfPresent(TokKind::kLeq)) {
    return ParseIotaArray(&sharding->iota_reshape_dims, &sharding->iota_transpose_perm);
  }
  do {
    int64_t device = 0;
    TS_RETURN_IF_ERROR(ParseInt64(&device));
    sharding->tile_assignment_devices.push_back(device);
  } while (EatIfPresent(TokKind::kComma));
  return absl::OkStatus();
}

// iota ::= '[' dims ']' ['T(' perm ')']   (T required when dims has >1 entry)
absl::Status HloParserImpl::ParseIotaArray(std::vector<int64_t>* reshape_dims,
                                           std::vector<int64_t>* transpose_perm) {
  reshape_dims->clear();
  transpose_perm->clear();
  TS_RETURN_IF_ERROR(
      ParseInt64List(TokKind::kLsquare, TokKind::kRsquare, TokKind::kComma, reshape_dims));
  if (reshape_dims->empty()) return ErrorAt(Offset(), "expected non-empty iota dimensions");
  if (reshape_dims->size() == 1) {
    transpose_perm->push_back(0);
    return absl::OkStatus();
  }
  if (Kind() != TokKind::kIdent || lexer_.token().text != "T") {
    return Expected("'T(' to give the iota transpose");
  }
  lexer_.Lex();
  const size_t offset = Offset();
  TS_RETURN_IF_ERROR(
      ParseInt64List(TokKind::kLparen, TokKind::kRparen, TokKind::kComma, transpose_perm));
  if (transpose_perm->size() != reshape_dims->size() || !IsPermutation(*transpose_perm)) {
    return ErrorAt(offset, absl::StrCat("expected a permutation of ", reshape_dims->size(),
                                        " dimensions in T(...)"));
  }
  CanonicalizeIota(reshape_dims, transpose_perm);
  return absl::OkStatus();
}

// domain ::= '{' kind="sharding", entry=sharding, exit=sharding '}'
absl::Status HloParserImpl::ParseDomain(HloAttributes* attrs) {
  std::string kind;
  size_t kind_offset = 0;
  HloSharding entry, exit;
  AttrTable table;
  table.Add("kind", true, [&] {
    kind_offset = Offset();
    return ParseString(&kind);
  });
  table.Add("entry", true, [&] { return ParseSharding(&entry); });
  table.Add("exit", true, [&] { return ParseSharding(&exit); });
  TS_RETURN_IF_ERROR(ParseSubAttributes(table, "domain"));
  if (kind != "sharding") {
    return ErrorAt(kind_offset, absl::StrCat("unsupported domain kind '", kind,
                                             "'; expected \"sharding\""));
  }
  // Text `entry=` is the user side and `exit=` the operand side; the proto
  // (whose fields HloAttributes mirrors) calls the operand side the entry.
  attrs->domain_entry_sharding = std::move(exit);
  attrs->domain_exit_sharding = std::move(entry);
  return absl::OkStatus();
}

}  // namespace parser_internal
}  // namespace tessera
