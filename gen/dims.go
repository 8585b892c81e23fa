package gen

// Carrier is one row of the carriers dimension table.
type Carrier struct {
	Code, Name, Country string
	// weight is the carrier's share of flights (0: listed, never flies).
	weight float64
	// home are the states the carrier mostly flies from and to.
	home []string
}

// Airport is one row of the airports dimension table.
type Airport struct {
	Code, City, State, Name string
}

// carriers are in order of traffic; weights follow a Zipf-like curve so a
// GROUP BY Carrier meets the skew the real data has. NQ is fictional and
// tiny, with a non-ASCII name; ZZ never flies, so joins from the dimension
// side find a carrier without flights.
var carriers = []Carrier{
	{"WN", "Southwest Airlines Co.", "United States", 0, nil},
	{"AA", "American Airlines Inc.", "United States", 0, nil},
	{"DL", "Delta Air Lines Inc.", "United States", 0, nil},
	{"UA", "United Air Lines Inc.", "United States", 0, nil},
	{"US", "US Airways Inc.", "United States", 0, nil},
	{"OO", "SkyWest Airlines Inc.", "United States", 0, nil},
	{"MQ", "Envoy Air", "United States", 0, nil},
	{"EV", "ExpressJet Airlines Inc.", "United States", 0, nil},
	{"NW", "Northwest Airlines Inc.", "United States", 0, nil},
	{"CO", "Continental Air Lines Inc.", "United States", 0, nil},
	{"XE", "ExpressJet Airlines Inc. (XE)", "United States", 0, nil},
	{"B6", "JetBlue Airways", "United States", 0, nil},
	{"AS", "Alaska Airlines Inc.", "United States", 0, []string{"AK", "WA"}},
	{"FL", "AirTran Airways Corporation", "United States", 0, nil},
	{"YV", "Mesa Airlines Inc.", "United States", 0, nil},
	{"9E", "Endeavor Air Inc.", "United States", 0, nil},
	{"OH", "Comair Inc.", "United States", 0, nil},
	{"F9", "Frontier Airlines Inc.", "United States", 0, nil},
	{"HA", "Hawaiian Airlines Inc.", "United States", 0, []string{"HI"}},
	{"TW", "Trans World Airways LLC", "United States", 0, nil},
	{"NQ", "Aerolíneas Ñandú S.A.", "Paraguay", 0, []string{"PR", "VI"}},
	{"ZZ", "Zürcher Luftschiff AG", "Schweiz", -1, nil},
}

// airports are in rough order of traffic (rank drives the Zipf weight).
// The list includes AK, HI, PR, VI and TT (Guam), which have small shares,
// and names with an apostrophe and with non-ASCII letters.
var airports = []Airport{
	{"ATL", "Atlanta", "GA", "Hartsfield-Jackson Atlanta International"},
	{"ORD", "Chicago", "IL", "Chicago O'Hare International"},
	{"DFW", "Dallas/Fort Worth", "TX", "Dallas/Fort Worth International"},
	{"LAX", "Los Angeles", "CA", "Los Angeles International"},
	{"DEN", "Denver", "CO", "Denver International"},
	{"PHX", "Phoenix", "AZ", "Phoenix Sky Harbor International"},
	{"IAH", "Houston", "TX", "George Bush Intercontinental/Houston"},
	{"LAS", "Las Vegas", "NV", "McCarran International"},
	{"DTW", "Detroit", "MI", "Detroit Metro Wayne County"},
	{"MSP", "Minneapolis", "MN", "Minneapolis-St Paul International"},
	{"SFO", "San Francisco", "CA", "San Francisco International"},
	{"EWR", "Newark", "NJ", "Newark Liberty International"},
	{"CLT", "Charlotte", "NC", "Charlotte Douglas International"},
	{"SLC", "Salt Lake City", "UT", "Salt Lake City International"},
	{"MCO", "Orlando", "FL", "Orlando International"},
	{"BOS", "Boston", "MA", "Logan International"},
	{"LGA", "New York", "NY", "LaGuardia"},
	{"SEA", "Seattle", "WA", "Seattle/Tacoma International"},
	{"PHL", "Philadelphia", "PA", "Philadelphia International"},
	{"JFK", "New York", "NY", "John F. Kennedy International"},
	{"BWI", "Baltimore", "MD", "Baltimore/Washington International Thurgood Marshall"},
	{"MDW", "Chicago", "IL", "Chicago Midway International"},
	{"DCA", "Washington", "DC", "Ronald Reagan Washington National"},
	{"IAD", "Washington", "VA", "Washington Dulles International"},
	{"SAN", "San Diego", "CA", "San Diego International"},
	{"HNL", "Honolulu", "HI", "Daniel K Inouye International"},
	{"TPA", "Tampa", "FL", "Tampa International"},
	{"FLL", "Fort Lauderdale", "FL", "Fort Lauderdale-Hollywood International"},
	{"STL", "St. Louis", "MO", "St Louis Lambert International"},
	{"PIT", "Pittsburgh", "PA", "Pittsburgh International"},
	{"CVG", "Cincinnati", "KY", "Cincinnati/Northern Kentucky International"},
	{"MIA", "Miami", "FL", "Miami International"},
	{"OAK", "Oakland", "CA", "Metropolitan Oakland International"},
	{"MCI", "Kansas City", "MO", "Kansas City International"},
	{"PDX", "Portland", "OR", "Portland International"},
	{"HOU", "Houston", "TX", "William P Hobby"},
	{"CLE", "Cleveland", "OH", "Cleveland-Hopkins International"},
	{"SMF", "Sacramento", "CA", "Sacramento International"},
	{"SJC", "San Jose", "CA", "Norman Y. Mineta San Jose International"},
	{"MSY", "New Orleans", "LA", "Louis Armstrong New Orleans International"},
	{"BNA", "Nashville", "TN", "Nashville International"},
	{"AUS", "Austin", "TX", "Austin - Bergstrom International"},
	{"RDU", "Raleigh/Durham", "NC", "Raleigh-Durham International"},
	{"SJU", "San Juan", "PR", "Luis Muñoz Marín International"},
	{"SAT", "San Antonio", "TX", "San Antonio International"},
	{"IND", "Indianapolis", "IN", "Indianapolis International"},
	{"MEM", "Memphis", "TN", "Memphis International"},
	{"CMH", "Columbus", "OH", "John Glenn Columbus International"},
	{"ANC", "Anchorage", "AK", "Ted Stevens Anchorage International"},
	{"SNA", "Santa Ana", "CA", "John Wayne Airport-Orange County"},
	{"MKE", "Milwaukee", "WI", "General Mitchell International"},
	{"ABQ", "Albuquerque", "NM", "Albuquerque International Sunport"},
	{"OGG", "Kahului", "HI", "Kahului Airport"},
	{"ONT", "Ontario", "CA", "Ontario International"},
	{"JAX", "Jacksonville", "FL", "Jacksonville International"},
	{"BUR", "Burbank", "CA", "Bob Hope"},
	{"RSW", "Fort Myers", "FL", "Southwest Florida International"},
	{"BDL", "Hartford", "CT", "Bradley International"},
	{"OMA", "Omaha", "NE", "Eppley Airfield"},
	{"TUS", "Tucson", "AZ", "Tucson International"},
	{"ELP", "El Paso", "TX", "El Paso International"},
	{"PBI", "West Palm Beach", "FL", "Palm Beach International"},
	{"RNO", "Reno", "NV", "Reno/Tahoe International"},
	{"OKC", "Oklahoma City", "OK", "Will Rogers World"},
	{"BUF", "Buffalo", "NY", "Buffalo Niagara International"},
	{"TUL", "Tulsa", "OK", "Tulsa International"},
	{"KOA", "Kona", "HI", "Ellison Onizuka Kona International at Keahole"},
	{"BHM", "Birmingham", "AL", "Birmingham-Shuttlesworth International"},
	{"SDF", "Louisville", "KY", "Louisville International-Standiford Field"},
	{"ORF", "Norfolk", "VA", "Norfolk International"},
	{"RIC", "Richmond", "VA", "Richmond International"},
	{"LIH", "Lihue", "HI", "Lihue Airport"},
	{"PVD", "Providence", "RI", "Theodore Francis Green State"},
	{"ALB", "Albany", "NY", "Albany International"},
	{"DSM", "Des Moines", "IA", "Des Moines International"},
	{"LIT", "Little Rock", "AR", "Bill and Hillary Clinton National/Adams Field"},
	{"GSO", "Greensboro/High Point", "NC", "Piedmont Triad International"},
	{"BOI", "Boise", "ID", "Boise Air Terminal"},
	{"SYR", "Syracuse", "NY", "Syracuse Hancock International"},
	{"ROC", "Rochester", "NY", "Greater Rochester International"},
	{"GEG", "Spokane", "WA", "Spokane International"},
	{"CHS", "Charleston", "SC", "Charleston AFB/International"},
	{"FAI", "Fairbanks", "AK", "Fairbanks International"},
	{"JNU", "Juneau", "AK", "Juneau International"},
	{"STT", "Charlotte Amalie", "VI", "Cyril E King"},
	{"STX", "Christiansted", "VI", "Henry E Rohlsen"},
	{"BQN", "Aguadilla", "PR", "Rafael Hernández"},
	{"PSE", "Ponce", "PR", "Mercedita"},
	{"ICT", "Wichita", "KS", "Wichita Dwight D Eisenhower National"},
	{"MSN", "Madison", "WI", "Dane County Regional-Truax Field"},
	{"PWM", "Portland", "ME", "Portland International Jetport"},
	{"BTV", "Burlington", "VT", "Burlington International"},
	{"MHT", "Manchester", "NH", "Manchester-Boston Regional"},
	{"SAV", "Savannah", "GA", "Savannah/Hilton Head International"},
	{"JAN", "Jackson/Vicksburg", "MS", "Jackson Medgar Wiley Evers International"},
	{"FAR", "Fargo", "ND", "Hector International"},
	{"FSD", "Sioux Falls", "SD", "Joe Foss Field"},
	{"BIL", "Billings", "MT", "Billings Logan International"},
	{"LEX", "Lexington", "KY", "Blue Grass"},
	{"MYR", "Myrtle Beach", "SC", "Myrtle Beach International"},
	{"CHA", "Chattanooga", "TN", "Lovell Field"},
	{"CRW", "Charleston/Dunbar", "WV", "Yeager"},
	{"CYS", "Cheyenne", "WY", "Cheyenne Regional/Jerry Olson Field"},
	{"ILG", "Wilmington", "DE", "New Castle"},
	{"GUM", "Guam", "TT", "Guam International"},
}

// Carriers returns the rows of the carriers table.
func Carriers() []Carrier { return append([]Carrier(nil), carriers...) }

// Airports returns the rows of the airports table.
func Airports() []Airport { return append([]Airport(nil), airports...) }
