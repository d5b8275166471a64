#include "hlo/parser/hlo_lexer.h"

#include <bit>
#include <cstdlib>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "hlo/parser/hlo_text_util.h"

namespace tessera {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return absl::ascii_isalpha(static_cast<unsigned char>(c)); }
bool IsHex(char c) { return absl::ascii_isxdigit(static_cast<unsigned char>(c)); }

// [a-zA-Z0-9_.-]
bool IsIdentifierChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
}

struct Keyword {
  absl::string_view text;
  TokKind kind;
};

constexpr Keyword kKeywords[] = {
    {"true", TokKind::kwTrue},
    {"false", TokKind::kwFalse},
    {"inf", TokKind::kwInf},
    {"HloModule", TokKind::kwHloModule},
    {"ENTRY", TokKind::kwEntry},
    {"ROOT", TokKind::kwRoot},
    {"FileNames", TokKind::kwFileNames},
    {"FunctionNames", TokKind::kwFunctionNames},
    {"FileLocations", TokKind::kwFileLocations},
    {"StackFrames", TokKind::kwStackFrames},
    {"maximal", TokKind::kwMaximal},
    {"replicated", TokKind::kwReplicated},
    {"manual", TokKind::kwManual},
    {"last_tile_dim_replicate", TokKind::kwLastTileDimReplicate},
    {"shard_as", TokKind::kwShardAs},
    {"shard_like", TokKind::kwShardLike},
    {"unknown", TokKind::kwUnknown},
    {"unreduced", TokKind::kwUnreduced},
};

// The pattern matchers return the end of the match starting at `at`, or
// npos.  They follow XLA's regular expressions (greedy; no alternative ever
// needs backtracking because the separators are outside the classes).
constexpr size_t kNoMatch = absl::string_view::npos;

size_t CountWhile(absl::string_view s, size_t at, bool (*pred)(char)) {
  size_t end = at;
  while (end < s.size() && pred(s[end])) ++end;
  return end - at;
}

// [-]?((\d+|\d+[.]\d*|\d*[.]\d+)([eE][+-]?\d+)) | [-]?(\d+[.]\d*|\d*[.]\d+)
size_t MatchFloat(absl::string_view s, size_t at) {
  size_t i = at;
  if (i < s.size() && s[i] == '-') ++i;
  const size_t int_digits = CountWhile(s, i, IsDigit);
  size_t end = i + int_digits;
  bool has_dot = false;
  if (end < s.size() && s[end] == '.') {
    const size_t frac_digits = CountWhile(s, end + 1, IsDigit);
    if (int_digits > 0 || frac_digits > 0) {
      has_dot = true;
      end += 1 + frac_digits;
    }
  }
  if (!has_dot && int_digits == 0) return kNoMatch;
  if (end < s.size() && (s[end] == 'e' || s[end] == 'E')) {
    size_t e = end + 1;
    if (e < s.size() && (s[e] == '+' || s[e] == '-')) ++e;
    const size_t exp_digits = CountWhile(s, e, IsDigit);
    if (exp_digits > 0) return e + exp_digits;
  }
  return has_dot ? end : kNoMatch;
}

bool IsBatchFeatureLabel(char c) { return IsDigit(c) || c == 'b' || c == 'f' || c == '?'; }
bool IsKernelLabel(char c) { return IsDigit(c) || c == 'i' || c == 'o' || c == '?'; }

// [0-9bf?]{2,}_[0-9io?]{2,}->[0-9bf?]{2,}
size_t MatchDimLabels(absl::string_view s, size_t at) {
  size_t i = at;
  size_t n = CountWhile(s, i, IsBatchFeatureLabel);
  if (n < 2) return kNoMatch;
  i += n;
  if (i >= s.size() || s[i] != '_') return kNoMatch;
  n = CountWhile(s, ++i, IsKernelLabel);
  if (n < 2) return kNoMatch;
  i += n;
  if (s.substr(i, 2) != "->") return kNoMatch;
  i += 2;
  n = CountWhile(s, i, IsBatchFeatureLabel);
  if (n < 2) return kNoMatch;
  return i + n;
}

// [0-9]+(x[0-9]+)+
size_t MatchDxD(absl::string_view s, size_t at) {
  size_t n = CountWhile(s, at, IsDigit);
  if (n == 0) return kNoMatch;
  size_t end = at + n;
  int groups = 0;
  while (end < s.size() && s[end] == 'x') {
    const size_t m = CountWhile(s, end + 1, IsDigit);
    if (m == 0) break;
    end += 1 + m;
    ++groups;
  }
  return groups > 0 ? end : kNoMatch;
}

// One padding group: [-]?[0-9]+_[-]?[0-9]+(_[0-9]+)?
size_t MatchPadGroup(absl::string_view s, size_t at) {
  size_t i = at;
  if (i < s.size() && s[i] == '-') ++i;
  size_t n = CountWhile(s, i, IsDigit);
  if (n == 0) return kNoMatch;
  i += n;
  if (i >= s.size() || s[i] != '_') return kNoMatch;
  ++i;
  if (i < s.size() && s[i] == '-') ++i;
  n = CountWhile(s, i, IsDigit);
  if (n == 0) return kNoMatch;
  i += n;
  if (i < s.size() && s[i] == '_') {
    n = CountWhile(s, i + 1, IsDigit);
    if (n > 0) i += 1 + n;
  }
  return i;
}

// group(xgroup)*
size_t MatchPad(absl::string_view s, size_t at) {
  size_t end = MatchPadGroup(s, at);
  if (end == kNoMatch) return kNoMatch;
  while (end < s.size() && s[end] == 'x') {
    const size_t next = MatchPadGroup(s, end + 1);
    if (next == kNoMatch) break;
    end = next;
  }
  return end;
}

}  // namespace

absl::string_view TokKindDescription(TokKind kind) {
  switch (kind) {
    case TokKind::kEof: return "end of input";
    case TokKind::kError: return "invalid token";
    case TokKind::kEqual: return "'='";
    case TokKind::kComma: return "','";
    case TokKind::kColon: return "':'";
    case TokKind::kAsterisk: return "'*'";
    case TokKind::kQuestionMark: return "'?'";
    case TokKind::kOctothorp: return "'#'";
    case TokKind::kPlus: return "'+'";
    case TokKind::kTilde: return "'~'";
    case TokKind::kLsquare: return "'['";
    case TokKind::kRsquare: return "']'";
    case TokKind::kLbrace: return "'{'";
    case TokKind::kRbrace: return "'}'";
    case TokKind::kLparen: return "'('";
    case TokKind::kRparen: return "')'";
    case TokKind::kArrow: return "'->'";
    case TokKind::kLeq: return "'<='";
    case TokKind::kDots: return "'...'";
    case TokKind::kwHloModule: return "'HloModule'";
    case TokKind::kwEntry: return "'ENTRY'";
    case TokKind::kwRoot: return "'ROOT'";
    case TokKind::kwTrue: return "'true'";
    case TokKind::kwFalse: return "'false'";
    case TokKind::kwInf: return "'inf'";
    case TokKind::kwMaximal: return "'maximal'";
    case TokKind::kwReplicated: return "'replicated'";
    case TokKind::kwManual: return "'manual'";
    case TokKind::kwUnknown: return "'unknown'";
    case TokKind::kwUnreduced: return "'unreduced'";
    case TokKind::kwLastTileDimReplicate: return "'last_tile_dim_replicate'";
    case TokKind::kwShardAs: return "'shard_as'";
    case TokKind::kwShardLike: return "'shard_like'";
    case TokKind::kwFileNames: return "'FileNames'";
    case TokKind::kwFunctionNames: return "'FunctionNames'";
    case TokKind::kwFileLocations: return "'FileLocations'";
    case TokKind::kwStackFrames: return "'StackFrames'";
    case TokKind::kNegInf: return "'-inf'";
    case TokKind::kPrimitiveType: return "element type";
    case TokKind::kName: return "name";
    case TokKind::kAttributeName: return "attribute name";
    case TokKind::kDimLabels: return "dimension labels";
    case TokKind::kDxD: return "window dimensions";
    case TokKind::kPad: return "padding";
    case TokKind::kIdent: return "identifier";
    case TokKind::kString: return "string";
    case TokKind::kInt: return "integer";
    case TokKind::kDecimal: return "decimal";
  }
  return "token";
}

TokKind HloLexer::Lex() {
  prev_end_ = token_.offset + token_.length;
  token_ = Token();
  token_.kind = LexToken();
  token_.length = pos_ - token_.offset;
  return token_.kind;
}

TokKind HloLexer::LookAhead() {
  if (token_.kind == TokKind::kEof || token_.kind == TokKind::kError) return token_.kind;
  State saved = Save();
  const TokKind next = Lex();
  Restore(std::move(saved));
  return next;
}

TokKind HloLexer::Error(std::string reason) {
  token_.text = std::move(reason);
  return TokKind::kError;
}

TokKind HloLexer::LexToken() {
  while (true) {
    token_.offset = pos_;
    if (pos_ >= text_.size()) return TokKind::kEof;
    const char c = text_[pos_++];
    switch (c) {
      case ' ':
      case '\t':
      case '\n':
      case '\r':
      case '\f':
      case '\v':
        continue;
      case '=': return TokKind::kEqual;
      case ',': return TokKind::kComma;
      case ':': return TokKind::kColon;
      case '*': return TokKind::kAsterisk;
      case '#': return TokKind::kOctothorp;
      case '+': return TokKind::kPlus;
      case '~': return TokKind::kTilde;
      case '[': return TokKind::kLsquare;
      case ']': return TokKind::kRsquare;
      case '{': return TokKind::kLbrace;
      case '}': return TokKind::kRbrace;
      case '(': return TokKind::kLparen;
      case ')': return TokKind::kRparen;
      case '%': return LexPercent();
      case '"':
      case '\'':
        return LexString(c);
      case '<':
        if (Peek(pos_) == '=') {
          ++pos_;
          return TokKind::kLeq;
        }
        return Error("unexpected character '<'");
      case '.':
        if (text_.substr(pos_, 2) == "..") {
          pos_ += 2;
          return TokKind::kDots;
        }
        return Error("unexpected character '.'");
      case '/':
        if (Peek(pos_) == '*') {
          const size_t close = text_.find("*/", pos_ + 1);
          if (close == absl::string_view::npos) {
            pos_ = text_.size();
            return Error("unterminated /* comment");
          }
          pos_ = close + 2;
          continue;
        }
        if (Peek(pos_) == '/') {
          while (pos_ < text_.size() && text_[pos_] != '\n' && text_[pos_] != '\r') ++pos_;
          continue;
        }
        return Error("unexpected character '/'");
      case '-':
        if (Peek(pos_) == '>') {
          ++pos_;
          return TokKind::kArrow;
        }
        return LexNumberOrPattern();
      case '?': {
        const TokKind kind = LexNumberOrPattern();
        if (kind == TokKind::kError) {
          pos_ = token_.offset + 1;
          token_.text.clear();
          return TokKind::kQuestionMark;
        }
        return kind;
      }
      default:
        if (IsDigit(c)) return LexNumberOrPattern();
        if (IsAlpha(c) || c == '_') return LexIdentifier();
        if (c == '\0') return Error("unexpected NUL character");
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
          return Error(absl::StrCat("unexpected character 0x",
                                    absl::Hex(static_cast<unsigned char>(c))));
        }
        return Error(absl::StrCat("unexpected character '", std::string(1, c), "'"));
    }
  }
}

TokKind HloLexer::LexIdentifier() {
  while (pos_ < text_.size() && IsIdentifierChar(text_[pos_])) ++pos_;
  const absl::string_view identifier = text_.substr(token_.offset, pos_ - token_.offset);
  if (Peek(pos_) == ':' && pos_ < text_.size()) {
    token_.text = std::string(identifier);
    ++pos_;
    return TokKind::kName;
  }
  if (Peek(pos_) == '=' && pos_ < text_.size()) {
    token_.text = std::string(identifier);
    ++pos_;
    return TokKind::kAttributeName;
  }
  if (identifier != "tuple") {
    absl::StatusOr<PrimitiveType> type = ParsePrimitiveType(identifier);
    if (type.ok()) {
      token_.primitive_type = *type;
      token_.text = std::string(identifier);
      return TokKind::kPrimitiveType;
    }
  }
  if (identifier == "nan") return LexNanPayload(/*negative=*/false);
  for (const Keyword& keyword : kKeywords) {
    if (identifier == keyword.text) return keyword.kind;
  }
  const size_t labels_end = MatchDimLabels(text_, token_.offset);
  if (labels_end != kNoMatch) {
    pos_ = labels_end;
    token_.text = std::string(text_.substr(token_.offset, pos_ - token_.offset));
    return TokKind::kDimLabels;
  }
  token_.text = std::string(identifier);
  return TokKind::kIdent;
}

TokKind HloLexer::LexPercent() {
  if (pos_ < text_.size() && (IsAlpha(text_[pos_]) || text_[pos_] == '_')) {
    const size_t start = pos_;
    while (pos_ < text_.size() && IsIdentifierChar(text_[pos_])) ++pos_;
    token_.text = std::string(text_.substr(start, pos_ - start));
    return TokKind::kName;
  }
  return Error("expected a name after '%'");
}

// NaN, after "nan" or "-nan": an optional payload "(0x<hex>)" becomes the
// low mantissa bits of a double NaN (the parser narrows it per type).
TokKind HloLexer::LexNanPayload(bool negative) {
  uint64_t payload = uint64_t{1} << 51;  // the quiet NaN without payload
  if (Peek(pos_) == '(' && pos_ < text_.size()) {
    size_t i = pos_ + 1;
    if (text_.substr(i, 2) != "0x") return Error("expected '(0x<hex digits>)' after nan");
    i += 2;
    const size_t digits = CountWhile(text_, i, IsHex);
    if (digits == 0 || Peek(i + digits) != ')') {
      return Error("expected '(0x<hex digits>)' after nan");
    }
    uint64_t value = 0;
    for (size_t k = 0; k < digits; ++k) {
      if (value > (uint64_t{1} << 52)) return Error("NaN payload out of range");
      const char h = text_[i + k];
      const int d = IsDigit(h) ? h - '0' : (absl::ascii_tolower(h) - 'a' + 10);
      value = value * 16 + static_cast<uint64_t>(d);
    }
    if (value == 0 || value >= (uint64_t{1} << 52)) return Error("NaN payload out of range");
    payload = value;
    pos_ = i + digits + 1;
  }
  const uint64_t bits =
      (negative ? (uint64_t{1} << 63) : 0) | (uint64_t{0x7ff} << 52) | payload;
  token_.decimal_value = std::bit_cast<double>(bits);
  return TokKind::kDecimal;
}

// A number or pattern must not run straight into an identifier: "1_2_3_4"
// or "3x3y" is one malformed word, not a padding followed by a name.
TokKind HloLexer::LexNumberOrPattern() {
  const TokKind kind = LexNumberOrPatternBody();
  if (kind == TokKind::kError) return kind;
  const char next = Peek(pos_);
  if (pos_ < text_.size() && (IsAlpha(next) || next == '_' || IsDigit(next))) {
    while (pos_ < text_.size() && IsIdentifierChar(text_[pos_])) ++pos_;
    return Error(absl::StrCat("malformed number '",
                              text_.substr(token_.offset, pos_ - token_.offset), "'"));
  }
  return kind;
}

TokKind HloLexer::LexNumberOrPatternBody() {
  const size_t start = token_.offset;
  auto take = [&](size_t end, TokKind kind) {
    pos_ = end;
    token_.text = std::string(text_.substr(start, end - start));
    return kind;
  };
  size_t end = MatchFloat(text_, start);
  if (end != kNoMatch) {
    pos_ = end;
    token_.text = std::string(text_.substr(start, end - start));
    token_.decimal_value = std::strtod(token_.text.c_str(), nullptr);
    return TokKind::kDecimal;
  }
  if ((end = MatchDimLabels(text_, start)) != kNoMatch) return take(end, TokKind::kDimLabels);
  if ((end = MatchDxD(text_, start)) != kNoMatch) return take(end, TokKind::kDxD);
  if ((end = MatchPad(text_, start)) != kNoMatch) return take(end, TokKind::kPad);

  // [-]?\d+: values up to UINT64_MAX are accepted and wrap into int64, as
  // in XLA (so u64 constants can use their whole range).
  size_t i = start;
  const bool negative = Peek(i) == '-' && i < text_.size();
  if (negative) ++i;
  const size_t digits = CountWhile(text_, i, IsDigit);
  if (digits > 0) {
    uint64_t magnitude = 0;
    for (size_t k = 0; k < digits; ++k) {
      const uint64_t d = static_cast<uint64_t>(text_[i + k] - '0');
      if (magnitude > (std::numeric_limits<uint64_t>::max() - d) / 10) {
        pos_ = i + digits;
        return Error("integer literal out of range");
      }
      magnitude = magnitude * 10 + d;
    }
    if (negative && magnitude > uint64_t{1} << 63) {
      pos_ = i + digits;
      return Error("integer literal out of range");
    }
    pos_ = i + digits;
    token_.int_value = negative ? static_cast<int64_t>(0 - magnitude)
                                : static_cast<int64_t>(magnitude);
    token_.int_negative = negative;
    token_.text = std::string(text_.substr(start, pos_ - start));
    return TokKind::kInt;
  }
  if (text_.substr(start, 4) == "-inf") {
    pos_ = start + 4;
    return TokKind::kNegInf;
  }
  if (text_.substr(start, 4) == "-nan") {
    pos_ = start + 4;
    return LexNanPayload(/*negative=*/true);
  }
  return Error(absl::StrCat("unexpected character '", std::string(1, text_[start]), "'"));
}

TokKind HloLexer::LexString(char quote) {
  size_t i = pos_;
  while (i < text_.size() && text_[i] != quote) {
    if (text_[i] == '\\') ++i;
    ++i;
  }
  if (i >= text_.size()) {
    pos_ = text_.size();
    return Error("unterminated string");
  }
  const absl::string_view raw = text_.substr(pos_, i - pos_);
  pos_ = i + 1;
  std::string unescaped;
  std::string error;
  if (!absl::CUnescape(raw, &unescaped, &error)) {
    return Error(absl::StrCat("invalid escape in string: ", error));
  }
  token_.text = std::move(unescaped);
  return TokKind::kString;
}

bool HloLexer::LexJsonDict() {
  if (token_.kind != TokKind::kLbrace) return false;
  const size_t start = token_.offset;
  size_t i = start + 1;
  int64_t depth = 1;
  while (i < text_.size() && depth > 0) {
    const char c = text_[i];
    if (c == '"') {
      ++i;
      while (i < text_.size() && text_[i] != '"') {
        if (text_[i] == '\\') ++i;
        ++i;
      }
      if (i >= text_.size()) break;
      ++i;
      continue;
    }
    if (c == '{') ++depth;
    if (c == '}') --depth;
    ++i;
  }
  if (depth != 0) {
    token_ = Token();
    token_.kind = TokKind::kError;
    token_.offset = start;
    token_.text = "unbalanced braces in a JSON-style dictionary";
    pos_ = text_.size();
    token_.length = pos_ - start;
    return false;
  }
  token_.kind = TokKind::kString;
  token_.text = std::string(text_.substr(start, i - start));
  token_.length = i - start;
  pos_ = i;
  return true;
}

std::pair<int64_t, int64_t> HloLexer::LineAndColumn(size_t offset) const {
  if (offset > text_.size()) offset = text_.size();
  int64_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text_[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, static_cast<int64_t>(offset - line_start) + 1};
}

bool LexesAsJsonDict(absl::string_view text) {
  HloLexer lexer(text);
  return lexer.Lex() == TokKind::kLbrace && lexer.LexJsonDict() &&
         lexer.Lex() == TokKind::kEof;
}

}  // namespace tessera
