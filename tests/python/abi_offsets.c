/* abi_offsets.c: the layout of the structs the Python package mirrors
 * with ctypes (python/onnxexp/_lib.py), as this compiler lays them out:
 * one "struct.field offset size" line each, and "struct - size" lines.
 * tests/python/test_api.py compares them with ctypes'. */
#include <stddef.h>
#include <stdio.h>

#include <onnxexp/onnxexp.h>

#define F(s, f) printf("%s.%s %zu %zu\n", #s, #f, offsetof(s, f), sizeof(((s *)0)->f))
#define S(s) printf("%s - %zu\n", #s, sizeof(s))

int main(void) {
  S(onnxexp_options);
  F(onnxexp_options, struct_size);
  F(onnxexp_options, opset_version);
  F(onnxexp_options, weights_path);
  F(onnxexp_options, weights_data);
  F(onnxexp_options, weights_size);
  F(onnxexp_options, input_names);
  F(onnxexp_options, n_input_names);
  F(onnxexp_options, output_names);
  F(onnxexp_options, n_output_names);
  F(onnxexp_options, dynamic_axes);
  F(onnxexp_options, n_dynamic_axes);
  F(onnxexp_options, do_constant_folding);
  F(onnxexp_options, keep_initializers_as_inputs);
  F(onnxexp_options, export_params);
  F(onnxexp_options, operator_export_type);
  F(onnxexp_options, training);
  F(onnxexp_options, custom_opsets);
  F(onnxexp_options, n_custom_opsets);
  F(onnxexp_options, doc_string);
  F(onnxexp_options, strip_doc_string);
  F(onnxexp_options, external_data);
  F(onnxexp_options, external_data_name);
  F(onnxexp_options, quiet);
  F(onnxexp_options, warning);
  F(onnxexp_options, warning_user);
  F(onnxexp_options, weights);
  F(onnxexp_options, progress);
  F(onnxexp_options, progress_user);
  S(onnxexp_dynamic_axis);
  F(onnxexp_dynamic_axis, input);
  F(onnxexp_dynamic_axis, axis);
  F(onnxexp_dynamic_axis, param);
  S(onnxexp_custom_opset);
  F(onnxexp_custom_opset, domain);
  F(onnxexp_custom_opset, version);
  return 0;
}
