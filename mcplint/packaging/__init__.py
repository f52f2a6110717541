"""What a project's wheel ships, read from its build configuration without running it.

`mcplint migrate` writes a generated helpers module and imports it from the
server's modules; an installed server imports it from its wheel, so the module
must sit where the project's build backend picks files up. `layout` holds the
model (which source trees land where in the wheel), `backends` reads it from
setuptools, hatch, poetry, flit, pdm and uv_build configuration, and
`placement` chooses the module's place (or says why there is none).
"""
