print("mobiusctl: not built yet")
