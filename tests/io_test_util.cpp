#include "io_test_util.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace dla::test::io {

namespace {
struct Scratch {
  fs::path dir;
  pid_t owner = ::getpid();  // a forked child that ends through exit() keeps it
  Scratch() {
    std::string t = (fs::temp_directory_path() / "dla_io_test.XXXXXX").string();
    if (!::mkdtemp(t.data())) throw std::runtime_error("mkdtemp failed");
    dir = t;
  }
  ~Scratch() {
    if (::getpid() == owner && !std::getenv("DLA_IO_KEEP")) {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  }
};
}  // namespace

const fs::path& scratch() {
  static Scratch s;
  return s.dir;
}

fs::path fresh_dir(const std::string& name) {
  static int counter = 0;
  fs::path d = scratch() / (name + "_" + std::to_string(counter++));
  fs::create_directories(d);
  return d;
}

int run_python(const std::string& args, std::string* output) {
  // DLA_TEST_PYTHON3 overrides the configure-time choice (a build tree
  // carried to another machine, whose h5py python lives elsewhere).
  const char* env = std::getenv("DLA_TEST_PYTHON3");
  const std::string py = env && *env ? env : DLA_PYTHON3, script = DLA_IO_FIXTURES;
  if (py.empty() || py.find("NOTFOUND") != std::string::npos) {
    if (output) *output = "no /usr/bin/python3 found at configure time (DLA_PYTHON3='" + py + "')";
    return 127;
  }
  const std::string cmd = "'" + py + "' '" + script + "' " + args + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> p(::popen(cmd.c_str(), "r"), ::pclose);
  if (!p) {
    if (output) *output = "popen failed for: " + cmd;
    return 127;
  }
  std::string out;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), int(buf.size()), p.get())) out += buf.data();
  const int status = ::pclose(p.release());
  if (output) *output = out;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

fs::path fixtures(std::string* why) {
  static fs::path dir;
  static std::string reason;
  static bool done = false;
  if (!done) {
    done = true;
    const fs::path d = scratch() / "fixtures";
    std::string out;
    const int rc = run_python("write '" + d.string() + "'", &out);
    if (rc == 0) dir = d;
    else reason = "io_fixtures.py write exited with " + std::to_string(rc) + ": " + out;
    std::printf("%s", out.c_str());
  }
  if (why) *why = reason;
  return dir;
}

int run_in_child(const std::function<int()>& body, bool through_exit) {
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int code = body();
    std::fflush(nullptr);
    if (through_exit) std::exit(code);
    ::_exit(code);
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  if (WIFSIGNALED(status)) return 1000 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

void expect_io_error(const std::function<void()>& f, const std::vector<std::string>& pieces,
                     std::string* message) {
  try {
    f();
    ADD_FAILURE() << "expected dla::IoError, nothing thrown";
  } catch (const dla::IoError& e) {
    const std::string m = e.what();
    if (message) *message = m;
    for (const auto& p : pieces) EXPECT_NE(m.find(p), std::string::npos) << "'" << p << "' not in: " << m;
    std::printf("  IoError: %s\n", m.c_str());
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected dla::IoError, got another exception: " << e.what();
  }
}

}  // namespace dla::test::io
