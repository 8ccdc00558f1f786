import MobiusCore
