"""The vendored benchmark data, shipped inside the package (provenance: README.md here).

Read it through `lats_runtime.resources.data_file(NAME)`, which works from a
source checkout and from an installed wheel alike.
"""
