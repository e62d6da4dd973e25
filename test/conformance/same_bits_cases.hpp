// Registers the same-bits cases (same_bits_matrix.hpp) for one exchange group: included once
// by each same_bits_<group>.cpp after it defines TREEFOLD_SAME_BITS_GROUP as the group's name
// (same_bits_matrix::group_<name>). No include guard: that is the point.
//
// Test names: same_bits/<case>/<group> and data_sets/<case>/<group>, so
// --run_test=same_bits/double_sums_every_kernel runs one case over every exchange and
// --run_test='*/*/m_ary' one group over every case.
#ifndef TREEFOLD_SAME_BITS_GROUP
#error "define TREEFOLD_SAME_BITS_GROUP (an exchange group of same_bits_matrix.hpp) before including same_bits_cases.hpp"
#endif

#include <boost/preprocessor/cat.hpp>

// TREEFOLD_SAME_BITS_PART (optional): 1 registers the double, float and integer sums and the
// data sets, 2 the operator and serialized-type cases, unset every case. A group too costly
// for one translation unit (automatic holds five exchanges' plans) is compiled in two halves.
#ifndef TREEFOLD_SAME_BITS_PART
#define TREEFOLD_SAME_BITS_PART 0
#endif

#define TREEFOLD_SAME_BITS_CASE(suite)                                                                                   \
    BOOST_AUTO_TEST_CASE(TREEFOLD_SAME_BITS_GROUP)                                                                       \
    {                                                                                                                    \
        treefold::testing::same_bits_matrix::suite<                                                                     \
            treefold::testing::same_bits_matrix::BOOST_PP_CAT(group_, TREEFOLD_SAME_BITS_GROUP)>();                     \
    }

BOOST_AUTO_TEST_SUITE(same_bits)

#if TREEFOLD_SAME_BITS_PART != 2
BOOST_AUTO_TEST_SUITE(double_sum_every_n_up_to_300)
TREEFOLD_SAME_BITS_CASE(double_sum_every_n_up_to_300)
BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(double_sums_every_kernel)
TREEFOLD_SAME_BITS_CASE(double_sums_every_kernel)
BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(float_and_integer_sums)
TREEFOLD_SAME_BITS_CASE(float_and_integer_sums)
BOOST_AUTO_TEST_SUITE_END()
#endif

#if TREEFOLD_SAME_BITS_PART != 1
BOOST_AUTO_TEST_SUITE(non_associative_and_stateful_operators)
TREEFOLD_SAME_BITS_CASE(non_associative_and_stateful_operators)
BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(non_commutative_operators)
TREEFOLD_SAME_BITS_CASE(non_commutative_operators)
BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(serialized_types)
TREEFOLD_SAME_BITS_CASE(serialized_types)
BOOST_AUTO_TEST_SUITE_END()
#endif

BOOST_AUTO_TEST_SUITE_END()

// The shared per-site log-likelihood data sets (../shared/data/psllh; skipped where absent).
#if TREEFOLD_SAME_BITS_PART != 2
BOOST_AUTO_TEST_SUITE(data_sets)

BOOST_AUTO_TEST_SUITE(reference_bits_everywhere)
TREEFOLD_SAME_BITS_CASE(reference_bits_everywhere)
BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(large_files_against_the_oracle)
TREEFOLD_SAME_BITS_CASE(large_files_against_the_oracle)
BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()

#endif

#undef TREEFOLD_SAME_BITS_CASE
#undef TREEFOLD_SAME_BITS_PART
