#include "backends/llvm_ir/kernel_support.h"

#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"

namespace tessera {
namespace llvm_ir {

IrArray EmitConstantArray(const HloInstruction& constant, llvm::Module* module) {
  const Literal& literal = constant.literal();
  const auto* data = static_cast<const uint8_t*>(literal.untyped_data());
  llvm::Constant* initializer = llvm::ConstantDataArray::get(
      module->getContext(), llvm::ArrayRef<uint8_t>(data, literal.size_bytes()));
  auto* global = new llvm::GlobalVariable(*module, initializer->getType(), /*isConstant=*/true,
                                          llvm::GlobalValue::PrivateLinkage, initializer,
                                          ToStringRef(absl::StrCat("constant.", constant.name())));
  global->setAlignment(llvm::Align(64));
  global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  Shape shape = constant.shape();
  shape.set_layout(Layout::Descending(shape.rank()));
  return IrArray(global, shape);
}

absl::Status CheckKernelArrayShape(const HloInstruction& hlo) {
  if (!hlo.shape().IsArray()) {
    return absl::UnimplementedError(absl::StrCat("%", hlo.name(), ": kernels take arrays only, not ",
                                                 hlo.shape().ToString()));
  }
  return LayoutStrides(hlo.shape()).status();
}

}  // namespace llvm_ir
}  // namespace tessera
