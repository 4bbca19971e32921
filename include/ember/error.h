// Exceptions raised by ember. Each maps to the Python built-in that PyTorch raises
// for the same mistake (see csrc/errors.cpp), so user code can catch them by kind.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace ember {

// RuntimeError in Python: the catch-all for a call that cannot run.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};
class IndexError : public Error { using Error::Error; };          // IndexError
class TypeError : public Error { using Error::Error; };           // TypeError
class ValueError : public Error { using Error::Error; };          // ValueError
class NotImplementedError : public Error { using Error::Error; }; // NotImplementedError
class AssertionError : public Error { using Error::Error; };      // AssertionError (where torch asserts)
class OutOfMemoryError : public Error { using Error::Error; };    // RuntimeError subclass

namespace detail {
template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace detail

}  // namespace ember

// EMBER_CHECK(cond, "op: message ", value, ...) throws ember::Error when cond is false.
// The message pieces are only formatted on failure, so a check costs one branch.
#define EMBER_CHECK_AS(kind, cond, ...) \
  do {                                   \
    if (__builtin_expect(!(cond), 0))    \
      throw ::ember::kind(::ember::detail::str(__VA_ARGS__)); \
  } while (0)
#define EMBER_CHECK(cond, ...) EMBER_CHECK_AS(Error, cond, __VA_ARGS__)
#define EMBER_CHECK_INDEX(cond, ...) EMBER_CHECK_AS(IndexError, cond, __VA_ARGS__)
#define EMBER_CHECK_TYPE(cond, ...) EMBER_CHECK_AS(TypeError, cond, __VA_ARGS__)
#define EMBER_CHECK_VALUE(cond, ...) EMBER_CHECK_AS(ValueError, cond, __VA_ARGS__)
