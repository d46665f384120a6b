const BOOKS = [
  {id: "gopl", title: "The Go Programming Language", author: "Alan Donovan, Brian Kernighan", year: 2015, price: "39.99"},
  {id: "sicp", title: "Structure and Interpretation of Computer Programs", author: "Harold Abelson, Gerald Sussman", year: 1996, price: "55.00"},
  {id: "tpop", title: "The Practice of Programming", author: "Brian Kernighan, Rob Pike", year: 1999, price: "42.50"},
  {id: "upe", title: "The Unix Programming Environment", author: "Brian Kernighan, Rob Pike", year: 1984, price: "31.25"},
  {id: "taocp1", title: "The Art of Computer Programming, Vol. 1", author: "Donald Knuth", year: 1997, price: "74.99"},
];
