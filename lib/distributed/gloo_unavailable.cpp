// The Gloo entry points of a build without Gloo (libgloo-dev was not found).
#ifndef EMBER_WITH_GLOO
#include "ember/distributed/process_group.h"

namespace ember::distributed {

bool is_gloo_available() { return false; }

ProcessGroupPtr make_gloo_process_group(const std::shared_ptr<Store>&, int, int, const GlooOptions&) {
  throw Error(
      "ember was built without Gloo, so the \"gloo\" backend is not available; install "
      "libgloo-dev and rebuild ember");
}

}  // namespace ember::distributed
#endif
