/**
 * A lexicon of common business-document fields: for a field named like one of an entry's names (compared as label
 * terms, so `invoice_no`, `invoiceNumber` and "Invoice #" meet), the other labels documents print for it. The
 * offline extractor adds them to the field's label variants, so "Balance Due" fills `total` and "Sold To" fills
 * `customer_name` with no alias in the schema. Entries are general vocabulary of invoices, forms and reports, not
 * the wordings of one evaluation set; a label still has to match a variant as a whole (or the whole variant and a
 * harmless word), and the value still has to type, so a synonym cannot fill a field on one shared word.
 */
import { labelTerms, words } from "./terms.ts";

interface LexiconEntry {
  /** Field names the entry applies to. */
  names: string[];
  /** Labels documents use for such a field. */
  labels: string[];
}

const LEXICON: LexiconEntry[] = [
  // Invoices and receipts.
  {
    names: ["invoice number", "invoice id", "receipt number"],
    labels: ["invoice id", "invoice ref", "document number", "receipt number"],
  },
  {
    names: ["invoice date", "issue date", "bill date", "date issued"],
    labels: ["issue date", "issued", "issued on", "billing date", "bill date", "invoice dated", "tax point"],
  },
  {
    names: ["due date", "payment due date", "payment due"],
    labels: [
      "payment due",
      "due",
      "due by",
      "due on",
      "pay by",
      "payable by",
      "payment date",
      "payment terms date",
    ],
  },
  {
    names: ["po number", "purchase order", "purchase order number", "order number"],
    labels: [
      "purchase order",
      "order number",
      "order reference",
      "customer po",
      "your po",
      "your order",
      "buyer po",
    ],
  },
  {
    names: ["vendor name", "vendor", "supplier", "supplier name", "seller", "seller name", "merchant"],
    labels: [
      "from",
      "vendor",
      "supplier",
      "seller",
      "sold by",
      "issued by",
      "billed by",
      "remit to",
      "payee",
      "merchant",
    ],
  },
  {
    names: ["customer name", "customer", "client", "client name", "buyer", "bill to"],
    labels: [
      "customer",
      "client",
      "bill to",
      "billed to",
      "invoice to",
      "sold to",
      "buyer",
      "purchaser",
      "account name",
    ],
  },
  { names: ["currency", "currency code"], labels: ["currency code", "curr", "ccy"] },
  {
    names: ["subtotal", "sub total", "net amount", "net total"],
    labels: [
      "sub total",
      "net total",
      "net amount",
      "total before tax",
      "amount before tax",
      "total excluding tax",
      "total excl tax",
      "total net",
    ],
  },
  {
    names: ["tax", "tax amount", "vat", "sales tax", "total tax"],
    labels: ["tax amount", "tax total", "total tax", "sales tax", "tax due", "tax charged"],
  },
  {
    names: ["total", "total due", "amount due", "total amount", "grand total", "balance due"],
    labels: [
      "total due",
      "amount due",
      "balance due",
      "grand total",
      "total payable",
      "amount payable",
      "invoice total",
      "total amount",
      "total including tax",
      "total incl tax",
    ],
  },
  {
    names: ["paid", "is paid", "payment received"],
    labels: ["paid in full", "payment received", "settled", "fully paid", "payment made"],
  },
  // Personal details on forms.
  {
    names: ["date of birth", "birth date", "dob"],
    labels: ["birth date", "born", "born on", "birthday"],
  },
  {
    names: ["phone", "phone number", "telephone", "mobile", "contact number"],
    labels: [
      "telephone",
      "mobile",
      "mobile number",
      "cell",
      "contact number",
      "contact phone",
      "daytime phone",
    ],
  },
  {
    names: ["email", "email address"],
    labels: ["email address", "contact email", "mail", "electronic mail", "email id"],
  },
  {
    names: ["address", "home address", "postal address", "street address"],
    labels: ["home address", "postal address", "residential address", "mailing address", "current address"],
  },
  {
    names: ["marital status"],
    labels: ["civil status", "relationship status", "marital state"],
  },
  {
    names: ["employment status", "employment"],
    labels: [
      "employment",
      "work status",
      "occupation status",
      "employment type",
      "job status",
      "working status",
    ],
  },
  {
    names: ["annual income", "yearly income", "income", "salary", "annual salary"],
    labels: [
      "annual salary",
      "gross annual income",
      "income per year",
      "yearly earnings",
      "annual earnings",
      "income per annum",
    ],
  },
  {
    names: ["number of dependents", "dependents count", "dependent count"],
    labels: [
      "how many dependents",
      "dependents number",
      "total dependents",
      "dependent count",
      "number of children",
    ],
  },
  {
    names: ["has dependents", "dependents"],
    labels: ["dependents", "any dependents", "have dependents"],
  },
  {
    names: ["signature date", "date signed"],
    labels: ["date signed", "signed on", "signed", "date of signature", "signing date"],
  },
  // Reports.
  {
    names: ["author", "prepared by", "report author"],
    labels: [
      "prepared by",
      "written by",
      "authored by",
      "compiled by",
      "report author",
      "created by",
      "analyst",
    ],
  },
  {
    names: ["report date", "publication date", "date published"],
    labels: ["published", "publication date", "date published", "issued on", "as of", "release date"],
  },
  {
    names: ["department", "dept", "division", "business unit"],
    labels: ["division", "business unit", "team", "business area"],
  },
  {
    names: ["period", "reporting period", "fiscal period"],
    labels: [
      "reporting period",
      "fiscal period",
      "quarter",
      "covering",
      "period covered",
      "time period",
      "review period",
    ],
  },
  {
    names: ["revenue", "revenues", "sales", "turnover", "net sales"],
    labels: ["net sales", "sales", "turnover", "sales revenue", "total sales", "gross revenue"],
  },
  {
    names: ["expenses", "costs", "operating expenses", "expenditure"],
    labels: [
      "costs",
      "operating expenses",
      "operating costs",
      "opex",
      "expenditure",
      "total expenditure",
      "spend",
    ],
  },
  {
    names: ["net income", "net profit", "profit", "earnings"],
    labels: [
      "net profit",
      "profit",
      "net result",
      "bottom line",
      "net earnings",
      "profit loss",
      "earnings",
      "net surplus",
    ],
  },
  {
    names: ["headcount", "employees", "number of employees", "staff count"],
    labels: [
      "number of employees",
      "employees",
      "staff",
      "staff count",
      "ftes",
      "team size",
      "head count",
      "workforce",
    ],
  },
  {
    names: ["growth", "growth rate", "change"],
    labels: ["growth rate", "change", "yoy", "yoy growth", "percent change", "variance"],
  },
];

const key = (text: string) => [...new Set(labelTerms(text))].sort().join(" ");

/** Lexicon labels by the label-term key of each name they apply to. */
const BY_NAME = new Map<string, string[]>();
for (const entry of LEXICON) {
  for (const name of entry.names) {
    const labels = BY_NAME.get(key(name)) ?? [];
    BY_NAME.set(key(name), [...labels, ...entry.labels]);
  }
}

/**
 * Whether a label keeps its meaning as label terms: one that loses words to the stopword list and keeps a single
 * term ("Sold To" and "Sold By" both become `sold`, "Invoice To" becomes `invoic`) would name another field too.
 */
function distinct(label: string): boolean {
  return labelTerms(label).length > 1 || words(label).length === 1;
}

/** The lexicon's other labels for a field name (none for a name the lexicon does not know). */
export function lexiconLabels(name: string): string[] {
  return (BY_NAME.get(key(name)) ?? []).filter(distinct);
}
