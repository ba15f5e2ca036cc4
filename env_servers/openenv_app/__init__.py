"""Our environments as OpenEnv environments: `lats serve openenv NAME`.

OpenEnv clients (and the trainers built on them: TRL, SkyRL, verifiers) can
then use Game of 24, the code runner, HotPotQA, WebShop or any other served
domain, with what OpenEnv lacks: every state is a signed snapshot that any
replica sharing the key restores (`reset(snapshot=...)`).
"""
