// The order bodies the bench posts: a small one (3 items) for the load runs and
// the statement count, a big one (200 items x 50 personalization fields).

export function smallOrder(externalId: string) {
  return {
    external_order_id: externalId,
    customer: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49 30 1234567' },
    currency: 'EUR',
    total_amount: 43.2,
    items: [
      {
        sku: 'MUG-WHITE-330',
        name: 'Mug, white, 330 ml',
        quantity: 2,
        price: 9.9,
        personalization: { text: 'Happy birthday, Anna!', font: 'Serif', color: '#aa3300' },
      },
      {
        sku: 'SHIRT-NAVY-M',
        name: 'T-shirt navy, M',
        quantity: 1,
        price: 19.9,
        personalization: { front_text: 'Team 7', back_number: 7 },
      },
      {
        sku: 'CARD-A6',
        name: 'Greeting card A6',
        quantity: 1,
        price: 3.5,
        personalization: { text: 'Love' },
      },
    ],
  }
}

export function bigOrder(externalId: string) {
  return {
    external_order_id: externalId,
    customer: { name: 'Großkunde AG', email: 'einkauf@example.com', phone: null },
    currency: 'EUR',
    total_amount: 12345.67,
    items: Array.from({ length: 200 }, (_, i) => ({
      sku: `SKU-${String(i).padStart(4, '0')}`,
      name: `Personalised product ${i}`,
      quantity: 1 + (i % 5),
      price: 12.5,
      personalization: Object.fromEntries(
        Array.from({ length: 50 }, (_, f) => [
          `field_${String(f).padStart(2, '0')}`,
          f % 10 === 7 ? f * 3.5 : f % 10 === 9 ? f % 2 === 0 : `Line ${f} for item ${i}: Grüße aus Köln ✓`,
        ]),
      ),
    })),
  }
}
