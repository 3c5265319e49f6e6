"""The model zoo: trained policies shipped with pi-env (package data), loaded by name as
``learned:2p``, ``learned:3p``, ``learned:4p``, ``learned:5p``, ``learned:solo`` (:mod:`pi_env.agents.learned`). Each
``.pt`` file has a model card ``.md`` beside it."""
