// How a Gloo group meets: ember's stores seen as gloo::rendezvous::Store, and the
// TCP device its pairs use. Only in builds with Gloo.
#pragma once
#ifdef EMBER_WITH_GLOO
#include <gloo/context.h>

#include <memory>

#include "ember/distributed/process_group.h"

namespace ember::distributed::detail {

// A connected full mesh of `size` ranks (blocks until all have joined; the
// timeout bounds the wait and every later operation of the context).
std::shared_ptr<gloo::Context> connect_gloo_context(const std::shared_ptr<Store>& store, int rank,
                                                    int size, const GlooOptions& options);

}  // namespace ember::distributed::detail
#endif
