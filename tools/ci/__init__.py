# SPDX-License-Identifier: BSD-3-Clause
"""The repository's CI checks (`python3 -m tools.ci.check_links`): links, the documentation
site, the grading workflows' job graph and shellcheck of their run: blocks."""
