// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file bank_diagram.hpp
 * @brief Text picture of a warp request: 32 lanes (rows) x 32 banks (columns).
 *
 * A cell is '.' when the lane does not touch the bank, otherwise the pass in which that
 * bank serves the lane's word: '1' for the first distinct word of the bank in the phase,
 * '2' for the second, ... ('a' = 10, 'b' = 11, ... 'w' = 32). Lanes reading the same
 * word share a digit (broadcast). A column whose highest digit is n is an n-way
 * conflict; the request's degree is the highest digit anywhere. Phases of 8- and 16-byte
 * accesses are separated by a rule, and each phase counts its passes from 1 again.
 *
 * @code
 *   std::cout << cudalab::bank::render_bank_diagram(
 *       cudalab::bank::from_word_indices(cudalab::bank::strided_words(2)), "stride 2");
 * @endcode
 */
#pragma once

#include <string>

#include "cudalab/bank_model.hpp"

namespace cudalab::bank {

/// The symbol of pass @p pass (1-based): '1'..'9', then 'a'.. ; '?' beyond 35.
char pass_symbol(int pass) noexcept;

/**
 * @brief Renders @p r as a lane x bank grid with a per-bank pass count line and a
 * summary ("degree 2 (2-way conflict), 2 wavefronts").
 * @param r     the warp's shared-memory request to draw
 * @param title printed first when not empty
 * @throws std::invalid_argument like conflict_degree()
 */
std::string render_bank_diagram(const WarpRequest& r, const std::string& title = "");

}  // namespace cudalab::bank
