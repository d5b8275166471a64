// Status propagation macros, the two every layer uses.
//
//   TS_RETURN_IF_ERROR(DoThing());
//   TS_ASSIGN_OR_RETURN(auto value, ComputeValue());
#ifndef TESSERA_HLO_IR_STATUS_MACROS_H_
#define TESSERA_HLO_IR_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define TS_RETURN_IF_ERROR(expr)                   \
  do {                                             \
    ::absl::Status ts_status_ = (expr);            \
    if (!ts_status_.ok()) return ts_status_;       \
  } while (0)

#define TS_CONCAT_INNER_(a, b) a##b
#define TS_CONCAT_(a, b) TS_CONCAT_INNER_(a, b)

#define TS_ASSIGN_OR_RETURN(lhs, expr) \
  TS_ASSIGN_OR_RETURN_IMPL_(TS_CONCAT_(ts_statusor_, __LINE__), lhs, expr)

#define TS_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                              \
  if (!statusor.ok()) return statusor.status();        \
  lhs = std::move(statusor).value()

#endif  // TESSERA_HLO_IR_STATUS_MACROS_H_
