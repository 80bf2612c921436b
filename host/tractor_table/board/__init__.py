"""Board models for the unix port: the Pico's flash (``mpy/norflash.py``), its
littlefs images (:mod:`.flashimage`) and the power-cut soak (:mod:`.flashsoak`)."""
