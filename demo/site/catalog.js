// The full catalogue: the staff picks of books.js and the rest of the shelf,
// each with a category and a publisher, for the catalogue, wishlist and
// publisher pages of the bench suite.
const CATALOG = [
  {id: "gopl", title: "The Go Programming Language", author: "Alan Donovan, Brian Kernighan", price: "39.99", category: "Programming", publisher: "Addison-Wesley", city: "Boston"},
  {id: "sicp", title: "Structure and Interpretation of Computer Programs", author: "Harold Abelson, Gerald Sussman", price: "55.00", category: "Programming", publisher: "MIT Press", city: "Cambridge"},
  {id: "tpop", title: "The Practice of Programming", author: "Brian Kernighan, Rob Pike", price: "42.50", category: "Programming", publisher: "Addison-Wesley", city: "Boston"},
  {id: "upe", title: "The Unix Programming Environment", author: "Brian Kernighan, Rob Pike", price: "31.25", category: "Systems", publisher: "Prentice Hall", city: "Englewood Cliffs"},
  {id: "taocp1", title: "The Art of Computer Programming, Vol. 1", author: "Donald Knuth", price: "74.99", category: "Algorithms", publisher: "Addison-Wesley", city: "Boston"},
  {id: "clrs", title: "Introduction to Algorithms", author: "Thomas Cormen, Charles Leiserson, Ronald Rivest, Clifford Stein", price: "89.00", category: "Algorithms", publisher: "MIT Press", city: "Cambridge"},
  {id: "ddia", title: "Designing Data-Intensive Applications", author: "Martin Kleppmann", price: "45.99", category: "Databases", publisher: "O'Reilly Media", city: "Sebastopol"},
  {id: "ostep", title: "Operating Systems: Three Easy Pieces", author: "Remzi Arpaci-Dusseau, Andrea Arpaci-Dusseau", price: "28.00", category: "Systems", publisher: "Arpaci-Dusseau Books", city: "Madison"},
  {id: "hacker", title: "Hacker's Delight", author: "Henry Warren", price: "59.95", category: "Algorithms", publisher: "Addison-Wesley", city: "Boston"},
  {id: "cpl", title: "The C Programming Language", author: "Brian Kernighan, Dennis Ritchie", price: "48.00", category: "Programming", publisher: "Prentice Hall", city: "Englewood Cliffs"},
  {id: "csapp", title: "Computer Systems: A Programmer's Perspective", author: "Randal Bryant, David O'Hallaron", price: "99.50", category: "Systems", publisher: "Pearson", city: "London"},
];
