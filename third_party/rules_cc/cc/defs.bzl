"""Offline stand-in for rules_cc: re-exports Bazel 4's native C++ rules."""
cc_library = native.cc_library
cc_binary = native.cc_binary
cc_test = native.cc_test
cc_toolchain = native.cc_toolchain
cc_toolchain_suite = native.cc_toolchain_suite
cc_import = native.cc_import
cc_proto_library = native.cc_proto_library
