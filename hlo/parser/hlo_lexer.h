// HloLexer: splits HLO text into tokens exactly as XLA's lexer does.
//
// The lexer is context free except for a few number-like patterns XLA lexes
// as single tokens: dimension labels ("b01f_01io->b01f"), window sizes
// ("3x3"), and paddings ("0_0x1_-1_2").  Whitespace, `// line` and
// `/* block */` comments are skipped.  A token remembers where it starts so
// the parser can report "line L, column C".
#ifndef TESSERA_HLO_PARSER_HLO_LEXER_H_
#define TESSERA_HLO_PARSER_HLO_LEXER_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "hlo/ir/primitive_type.h"

namespace tessera {

enum class TokKind : uint8_t {
  kEof,
  kError,  // the token's text says why
  // Punctuation.
  kEqual,         // =
  kComma,         // ,
  kColon,         // :
  kAsterisk,      // *
  kQuestionMark,  // ?
  kOctothorp,     // #
  kPlus,          // +
  kTilde,         // ~
  kLsquare,       // [
  kRsquare,       // ]
  kLbrace,        // {
  kRbrace,        // }
  kLparen,        // (
  kRparen,        // )
  kArrow,         // ->
  kLeq,           // <=
  kDots,          // ...
  // Keywords.
  kwHloModule,
  kwEntry,
  kwRoot,
  kwTrue,
  kwFalse,
  kwInf,
  kwMaximal,
  kwReplicated,
  kwManual,
  kwUnknown,
  kwUnreduced,
  kwLastTileDimReplicate,
  kwShardAs,
  kwShardLike,
  kwFileNames,
  kwFunctionNames,
  kwFileLocations,
  kwStackFrames,
  // Values.
  kNegInf,         // -inf
  kPrimitiveType,  // f32, pred, token, ...
  kName,           // %name, or name: (the colon is consumed)
  kAttributeName,  // name= (the equal sign is consumed)
  kDimLabels,      // b01f_01io->b01f
  kDxD,            // 3x3
  kPad,            // 0_0x1_1
  kIdent,          // any other identifier
  kString,         // "..." or '...', unescaped; or a raw JSON dict
  kInt,
  kDecimal,
};

// A short description of a token kind for error messages ("'{'", "name").
absl::string_view TokKindDescription(TokKind kind);

struct Token {
  TokKind kind = TokKind::kEof;
  size_t offset = 0;  // where the token starts in the text
  size_t length = 0;  // how many characters it spans
  std::string text;   // names, identifiers, patterns, unescaped strings, error reasons
  int64_t int_value = 0;        // kInt (values above INT64_MAX wrap, as in XLA)
  bool int_negative = false;    // kInt written with a leading '-' (so "-0" is known)
  double decimal_value = 0;     // kDecimal
  PrimitiveType primitive_type = PRIMITIVE_TYPE_INVALID;  // kPrimitiveType
};

class HloLexer {
 public:
  explicit HloLexer(absl::string_view text) : text_(text) {}

  // Advances to the next token and returns its kind.
  TokKind Lex();
  // The kind of the token after the current one, without advancing.
  TokKind LookAhead();

  const Token& token() const { return token_; }
  TokKind kind() const { return token_.kind; }
  absl::string_view text() const { return text_; }
  // The source text of the current token.
  absl::string_view TokenSource() const { return text_.substr(token_.offset, token_.length); }
  // Where the token before the current one ends (0 before the first): the
  // place to report something missing after it.
  size_t PreviousTokenEnd() const { return prev_end_; }

  // Re-reads the current `{` token and everything up to its matching `}` as
  // one raw kString token (XLA's JSON-dict form of backend_config and
  // frontend attribute values): braces are counted outside double-quoted
  // strings.  Returns false, leaving an error token, when unbalanced.
  bool LexJsonDict();

  // Saving and restoring lets the parser try one reading and back off.
  struct State {
    size_t pos;
    size_t prev_end;
    Token token;
  };
  State Save() const { return {pos_, prev_end_, token_}; }
  void Restore(State state) {
    pos_ = state.pos;
    prev_end_ = state.prev_end;
    token_ = std::move(state.token);
  }

  // 1-based line and column of a text offset.
  std::pair<int64_t, int64_t> LineAndColumn(size_t offset) const;

 private:
  TokKind LexToken();
  TokKind LexIdentifier();
  TokKind LexPercent();
  TokKind LexNumberOrPattern();
  TokKind LexNumberOrPatternBody();
  TokKind LexString(char quote);
  TokKind LexNanPayload(bool negative);
  TokKind Error(std::string reason);

  char Peek(size_t at) const { return at < text_.size() ? text_[at] : '\0'; }

  absl::string_view text_;
  size_t pos_ = 0;
  size_t prev_end_ = 0;
  Token token_;
};

// True when `text` is exactly one brace-balanced `{...}` (optionally
// surrounded by whitespace and comments): XLA then prints it raw instead of
// as a quoted string.
bool LexesAsJsonDict(absl::string_view text);

}  // namespace tessera

#endif  // TESSERA_HLO_PARSER_HLO_LEXER_H_
