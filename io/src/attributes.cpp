// Attributes: scalar numbers and strings (fixed- and variable-length).
#include <cstring>

#include "dla/io/read.hpp"
#include "h5util.hpp"

namespace dla::io {

using namespace detail;

namespace {

herr_t collect_attr(hid_t, const char* name, const H5A_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->emplace_back(name);
  return 0;
}

std::vector<std::string> attribute_names(hid_t obj) {
  std::vector<std::string> names;
  hsize_t idx = 0;
  H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_attr, &names);
  H5Eclear2(H5E_DEFAULT);
  return names;
}
}  // namespace

std::vector<std::string> list_attributes(const std::string& path, const std::string& dataset) {
  Silence quiet;
  Handle file = open_file(path);
  Handle obj = open_object(file.get(), path, dataset);
  return attribute_names(obj.get());
}

Attribute read_attribute(const std::string& path, const std::string& dataset, const std::string& name) {
  Silence quiet;
  Handle file = open_file(path);
  Handle obj = open_object(file.get(), path, dataset);
  const std::string where = normalize(dataset).empty() ? "/" : normalize(dataset);
  auto afail = [&](const std::string& what, bool h5 = false) {
    fail(path, where, "attribute '" + name + "': " + what, h5);
  };
  if (H5Aexists(obj.get(), name.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    std::string list;
    for (const auto& n : attribute_names(obj.get())) list += (list.empty() ? "" : ", ") + n;
    afail("no such attribute (" + (list.empty() ? std::string("it has no attributes") : "attributes: " + list) + ")");
  }
  Handle a(H5Aopen(obj.get(), name.c_str(), H5P_DEFAULT));
  if (!a) afail("cannot be opened: the file is corrupted", true);
  Handle type(H5Aget_type(a.get()));
  Handle space(H5Aget_space(a.get()));
  if (!type || !space) afail("cannot be read: the file is corrupted", true);
  const hssize_t npoints = H5Sget_simple_extent_npoints(space.get());
  if (npoints != 1)
    afail("holds " + std::to_string(npoints) + " values; only scalar attributes (or one-element arrays) are read");
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls == H5T_INTEGER) {
    std::int64_t v = 0;
    if (H5Aread(a.get(), H5T_NATIVE_INT64, &v) < 0) afail("read failed", true);
    return v;
  }
  if (cls == H5T_FLOAT) {
    double v = 0;
    if (H5Aread(a.get(), H5T_NATIVE_DOUBLE, &v) < 0) afail("read failed", true);
    return v;
  }
  if (cls == H5T_STRING) {
    const htri_t vlen = H5Tis_variable_str(type.get());
    Handle mem(H5Tcopy(H5T_C_S1));
    H5Tset_cset(mem.get(), H5Tget_cset(type.get()));
    if (vlen > 0) {
      H5Tset_size(mem.get(), H5T_VARIABLE);
      char* s = nullptr;
      if (H5Aread(a.get(), mem.get(), &s) < 0) afail("read failed", true);
      std::string out = s ? s : "";
      H5free_memory(s);
      return out;
    }
    const std::size_t size = H5Tget_size(type.get());
    H5Tset_size(mem.get(), size);
    H5Tset_strpad(mem.get(), H5Tget_strpad(type.get()));
    std::string buf(size, '\0');
    if (H5Aread(a.get(), mem.get(), buf.data()) < 0) afail("read failed", true);
    buf.resize(std::strlen(buf.c_str()));
    if (H5Tget_strpad(type.get()) == H5T_STR_SPACEPAD)
      while (!buf.empty() && buf.back() == ' ') buf.pop_back();
    return buf;
  }
  afail("unsupported type " + type_name(type.get()) + ": only integer, floating-point and string attributes are read");
  return Attribute{};  // not reached
}

namespace detail {

void write_attribute(hid_t obj, const std::string& path, const std::string& dataset, const std::string& name,
                     const Attribute& value) {
  const std::string where = normalize(dataset).empty() ? "/" : normalize(dataset);
  auto afail = [&](const std::string& what) { fail(path, where, "attribute '" + name + "': " + what, true); };
  if (name.empty()) fail(path, where, "an attribute needs a name");
  if (H5Aexists(obj, name.c_str()) > 0 && H5Adelete(obj, name.c_str()) < 0) afail("cannot replace it");
  H5Eclear2(H5E_DEFAULT);
  Handle space(H5Screate(H5S_SCALAR));
  Handle file_type, mem_type;
  const void* buf = nullptr;
  const char* cstr = nullptr;
  if (auto* i = std::get_if<std::int64_t>(&value)) {
    file_type = Handle(H5Tcopy(H5T_STD_I64LE));
    mem_type = Handle(H5Tcopy(H5T_NATIVE_INT64));
    buf = i;
  } else if (auto* d = std::get_if<double>(&value)) {
    file_type = Handle(H5Tcopy(H5T_IEEE_F64LE));
    mem_type = Handle(H5Tcopy(H5T_NATIVE_DOUBLE));
    buf = d;
  } else {
    const std::string& s = std::get<std::string>(value);
    if (s.find('\0') != std::string::npos) afail("a string attribute cannot contain NUL characters");
    file_type = Handle(H5Tcopy(H5T_C_S1));
    H5Tset_size(file_type.get(), H5T_VARIABLE);
    H5Tset_cset(file_type.get(), H5T_CSET_UTF8);
    mem_type = Handle(H5Tcopy(file_type.get()));
    cstr = s.c_str();
    buf = &cstr;
  }
  Handle a(H5Acreate2(obj, name.c_str(), file_type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
  if (!a) afail("cannot be created");
  if (H5Awrite(a.get(), mem_type.get(), buf) < 0) afail("write failed");
  if (!a.close()) afail("write failed");
}

}  // namespace detail
}  // namespace dla::io
