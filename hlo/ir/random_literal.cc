#include "hlo/ir/random_literal.h"

#include <type_traits>

#include "absl/strings/str_cat.h"

namespace tessera {
namespace {

template <typename T>
void FillArray(Literal& literal, std::mt19937_64& rng) {
  absl::Span<T> data = literal.data<T>();
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  if constexpr (std::is_same_v<T, bool>) {
    std::bernoulli_distribution coin(0.5);
    for (T& v : data) v = coin(rng);
  } else if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
    using Part = typename T::value_type;
    for (T& v : data) {
      const Part re = static_cast<Part>(real(rng));
      v = T(re, static_cast<Part>(real(rng)));
    }
  } else if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<int> dist(std::is_signed_v<T> ? -8 : 0, 8);
    for (T& v : data) v = static_cast<T>(dist(rng));
  } else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16> || kIsFloat8<T>) {
    for (T& v : data) v = T(static_cast<float>(real(rng)));
  } else {
    for (T& v : data) v = static_cast<T>(real(rng));
  }
}

}  // namespace

absl::StatusOr<Literal> MakeRandomLiteral(const Shape& shape, std::mt19937_64& rng) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& element : shape.tuple_shapes()) {
      absl::StatusOr<Literal> literal = MakeRandomLiteral(element, rng);
      if (!literal.ok()) return literal.status();
      elements.push_back(*std::move(literal));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  if (shape.IsToken()) return Literal::CreateToken();
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot make a random value of shape ", shape.ToString()));
  }
  Literal literal(shape);
  DispatchElementType(shape.element_type(), [&]<typename T>() {
    if constexpr (!std::is_void_v<T>) FillArray<T>(literal, rng);
  });
  return literal;
}

}  // namespace tessera
