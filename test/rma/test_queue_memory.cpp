// The queue memory model (Eq. 6.1 / 6.2 of the large-scale-collectives thesis) against values
// computed by hand, including the thesis's own ARCHER thresholds (56 and 73 processes).
#include <boost/test/unit_test.hpp>

#include "support/mpi_test.hpp"
#include "treefold/rma/locked_queue.hpp"
#include "treefold/rma/mpsc_queue.hpp"
#include "treefold/rma/queue_memory.hpp"

#include <stdexcept>

using namespace treefold::rma;

BOOST_AUTO_TEST_CASE(buffer_is_counters_plus_two_halves)
{
    BOOST_TEST(queue_buffer_bytes(1024, 32) == 65600U); // 64 + 2 * 1024 * 32: the bench's queue
    BOOST_TEST(queue_buffer_bytes(4, 16) == 192U);
    BOOST_TEST(queue_buffer_bytes(2048, 64, 0) == 262144U);
    // The model's buffer is the window the queues really allocate (the formula is written in
    // both places: this keeps them together).
    const auto& world = treefold::testing::world();
    BOOST_TEST(treefold::rma::mpsc_queue(world, 1024, 32).window_bytes() == queue_buffer_bytes(1024, 32));
    BOOST_TEST(treefold::rma::locked_queue(world, 4, 16).window_bytes() == queue_buffer_bytes(4, 16));
}

BOOST_AUTO_TEST_CASE(eq61_is_the_ratio_and_the_first_saving_count_follows_it)
{
    BOOST_TEST(eq61_threshold(65600, 1000) == 65.6);
    BOOST_TEST(first_saving_per_peer(65600, 1000) == 66.0);
    // A whole ratio: at 56 peers both use the same memory, from 57 on the queue saves.
    BOOST_TEST(eq61_threshold(56 * 4096, 4096) == 56.0);
    BOOST_TEST(first_saving_per_peer(56 * 4096, 4096) == 57.0);
    BOOST_TEST(per_peer_bytes(57, 4096) > 56.0 * 4096);
}

BOOST_AUTO_TEST_CASE(eq62_counts_whole_nodes)
{
    // The thesis's ARCHER figure: 24 processes per node, a buffer of three node mailboxes.
    BOOST_TEST(eq62_threshold(3 * 8192, 8192, 24) == 73.0);
    BOOST_TEST(first_saving_per_node(3 * 8192, 8192, 24) == 73.0);
    BOOST_TEST(per_node_bytes(72, 8192, 24) == 3.0 * 8192); // equal at 72 peers (3 nodes) ...
    BOOST_TEST(per_node_bytes(73, 8192, 24) == 4.0 * 8192); // ... more from the 4th node on
    // A buffer of 2.5 mailboxes: Eq. 6.2 with a ceiling says 73, but 49 peers already span 3 nodes.
    BOOST_TEST(eq62_threshold(2.5 * 8192, 8192, 24) == 73.0);
    BOOST_TEST(first_saving_per_node(2.5 * 8192, 8192, 24) == 49.0);
    BOOST_TEST(per_node_bytes(48, 8192, 24) < 2.5 * 8192);
    BOOST_TEST(per_node_bytes(49, 8192, 24) > 2.5 * 8192);
}

BOOST_AUTO_TEST_CASE(non_positive_inputs_throw)
{
    BOOST_CHECK_THROW(eq61_threshold(0, 1000), std::invalid_argument);
    BOOST_CHECK_THROW(eq61_threshold(65600, 0), std::invalid_argument);
    BOOST_CHECK_THROW(eq62_threshold(65600, 8192, 0), std::invalid_argument);
    BOOST_CHECK_THROW(first_saving_per_node(65600, -1, 24), std::invalid_argument);
}
